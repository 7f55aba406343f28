import { createHash, createPublicKey, verify as verifySignature, type JsonWebKey, type KeyObject } from 'node:crypto';
import { canonicalJson, verifyCompactJws } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { parseEd25519Jwks } from './ed25519-jwks';

/** `typ` of one party's signing receipt (decision-gateway's agreements). */
export const SIGNATURE_RECEIPT_TYP = 'svc-signature+jws';

/** Why an agreement receipt failed offline verification. */
export type AgreementReceiptFailure =
  /** Not JSON, or not `{object: "agreement_receipt", …}` with exactly the receipt's fields. */
  | 'not_a_receipt'
  /** A JWKS file is not a JSON Web Key Set. */
  | 'jwks_invalid'
  /** The bytes are not the receipt's RFC 8785 canonical form: something was changed. */
  | 'not_canonical'
  /** A signature's key is in none of the JWKS files. */
  | 'unknown_kid'
  /** A signature does not verify. */
  | 'bad_signature'
  /** A signature is about another agreement, document or quorum, a party answers twice, or the status disagrees with the signatures. */
  | 'inconsistent'
  /** The document given does not have the receipt's digest. */
  | 'document_mismatch'
  /** A signer's bound passkey assertion does not verify against its credential key, challenge or relying party. */
  | 'bad_passkey_assertion';

export type AgreementReceiptVerification =
  | {
      ok: true;
      agreementId: string;
      status: string;
      signed: number;
      required: number;
      answers: number;
      kids: string[];
      passkeys: number;
      documentSha256: string;
      amendments: number;
    }
  | { ok: false; failure: AgreementReceiptFailure; message: string };

const RECEIPT_FIELDS = ['agreement_id', 'document_sha256', 'object', 'quorum', 'signatures', 'status'];
const STATUSES = ['pending', 'partially_signed', 'active', 'declined', 'expired', 'withdrawn'];
const OUTCOMES = ['signed', 'declined', 'expired', 'countered'];
const AMENDMENT_FIELDS = ['amendment_id', 'document_sha256', 'number', 'previous_document_sha256', 'signatures', 'status'];
const AMENDMENT_STATUSES = ['pending', 'partially_signed', 'adopted', 'rejected', 'expired'];

const fail = (failure: AgreementReceiptFailure, message: string): AgreementReceiptVerification => ({ ok: false, failure, message });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const b64url = (value: unknown): Buffer | null =>
  typeof value === 'string' && /^[A-Za-z0-9_-]*$/.test(value) ? Buffer.from(value, 'base64url') : null;

/** The challenge a signer's passkey signs for one signature (decision-gateway's `signatureChallenge`). */
export function signatureChallenge(claims: {
  agreement_id: unknown;
  party_id: unknown;
  document_sha256: unknown;
  signer: unknown;
  amendment_id?: unknown;
}): string {
  const canonical = canonicalJson({
    agreement_id: claims.agreement_id,
    party_id: claims.party_id,
    document_sha256: claims.document_sha256,
    signer: claims.signer,
    outcome: 'signed',
    ...(claims.amendment_id !== undefined ? { amendment_id: claims.amendment_id } : {}),
  });
  return createHash('sha256').update(canonical).digest('base64url');
}

/**
 * Checks a passkey assertion bound into a signature: the challenge is the one of this signature
 * (recomputed from the claims), the client data is a `webauthn.get` over it from the issuer's
 * origin, the authenticator data names the issuer's host as relying party with the user present,
 * and the signature over `authenticator_data || SHA-256(client_data_json)` verifies with the bound
 * credential public key. Returns why not, or null.
 */
export function passkeyAssertionProblem(claims: Record<string, unknown>): string | null {
  const assertion = claims['passkey_assertion'];
  if (!isObject(assertion)) return 'passkey_assertion is not an object';
  if (claims['outcome'] !== 'signed' || claims['signer_authentication'] !== 'passkey')
    return 'a passkey assertion belongs to a signed outcome by passkey';
  const challenge = signatureChallenge(claims as Parameters<typeof signatureChallenge>[0]);
  if (assertion['challenge'] !== challenge) return 'the assertion challenge is not this signature';
  let origin: URL;
  try {
    origin = new URL(String(claims['iss']));
  } catch {
    return 'the signature has no issuer origin';
  }
  const clientDataBytes = b64url(assertion['client_data_json']);
  const authenticatorData = b64url(assertion['authenticator_data']);
  const signature = b64url(assertion['signature']);
  if (!clientDataBytes || !authenticatorData || !signature || authenticatorData.length < 37) return 'the assertion bytes are not base64url';
  let clientData: unknown;
  try {
    clientData = JSON.parse(clientDataBytes.toString('utf8'));
  } catch {
    return 'client_data_json is not JSON';
  }
  if (
    !isObject(clientData) ||
    clientData.type !== 'webauthn.get' ||
    clientData.challenge !== challenge ||
    clientData.origin !== origin.origin
  ) {
    return 'the client data is not a webauthn.get over this signature from the issuer origin';
  }
  if (!authenticatorData.subarray(0, 32).equals(createHash('sha256').update(origin.hostname).digest()))
    return 'the authenticator data names another relying party';
  if ((authenticatorData[32]! & 0x01) === 0) return 'the authenticator data does not show the user present';
  const jwk = assertion['public_key'];
  if (!isObject(jwk)) return 'the assertion has no credential public key';
  let key: KeyObject;
  try {
    key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
  } catch {
    return 'the credential public key is not a JWK';
  }
  const signed = Buffer.concat([authenticatorData, createHash('sha256').update(clientDataBytes).digest()]);
  const hash = jwk.kty === 'OKP' ? null : jwk.crv === 'P-384' ? 'sha384' : jwk.crv === 'P-521' ? 'sha512' : 'sha256';
  let valid = false;
  try {
    valid = verifySignature(hash, signed, jwk.kty === 'EC' ? { key, dsaEncoding: 'der' } : key, signature);
  } catch {
    valid = false;
  }
  return valid ? null : 'the assertion signature does not verify with the credential key';
}

/**
 * Verifies an agreement's receipt offline (GET /api/v1/agreements/{id}/receipt), with nothing but
 * the receipt, the JWKS of the regions whose keys signed (an agreement's signers may sign in
 * several regions) and optionally the document, all as untrusted input:
 *
 * 1. the bytes must be exactly the RFC 8785 canonical form of the receipt (`not_canonical`), so
 *    any changed, added or removed byte — whitespace included — fails;
 * 2. every signature is a compact EdDSA JWS of typ `svc-signature+jws` whose `kid` is in the JWKS
 *    (`unknown_kid`) and which verifies (`bad_signature`); keys come only from the JWKS;
 * 3. every signature names this agreement, this document digest and this quorum, each party at
 *    most once, and the `status` agrees with the count of `signed` outcomes: `active` needs the
 *    quorum, `pending` / `partially_signed` must be short of it (`inconsistent`);
 * 4. with a document, its SHA-256 must be the receipt's (`document_mismatch`);
 * 5. a signature with the signer's passkey assertion bound in (`signer_authentication: passkey`)
 *    must carry one that verifies ({@link passkeyAssertionProblem}, `bad_passkey_assertion`);
 * 6. `amendments` (optional, an active agreement only): numbered 1…n, each replacing the document
 *    in force, its votes checked like the signatures (naming the amendment and its document),
 *    `adopted` only with the quorum of `signed` votes, only the last one open; an adopted one
 *    becomes the document in force, which a given document may also match.
 */
export async function verifyAgreementReceipt(
  receiptText: string,
  jwksTexts: readonly string[],
  documentBytes?: Buffer,
): Promise<AgreementReceiptVerification> {
  let receipt: unknown;
  try {
    receipt = JSON.parse(receiptText);
  } catch {
    return fail('not_a_receipt', 'receipt file is not JSON');
  }
  const fields = Object.keys(receipt ?? {})
    .filter((k) => k !== 'amendments')
    .sort()
    .join(',');
  if (!isObject(receipt) || receipt.object !== 'agreement_receipt' || fields !== RECEIPT_FIELDS.join(',')) {
    return fail(
      'not_a_receipt',
      'not an agreement receipt: expected exactly {object: "agreement_receipt", agreement_id, document_sha256, status, quorum, signatures}',
    );
  }
  const { agreement_id: agreementId, document_sha256: digest, status, quorum, signatures } = receipt;
  if (
    typeof agreementId !== 'string' ||
    typeof digest !== 'string' ||
    !/^[0-9a-f]{64}$/.test(digest) ||
    typeof status !== 'string' ||
    !STATUSES.includes(status) ||
    !isObject(quorum) ||
    typeof quorum.type !== 'string' ||
    typeof quorum.required !== 'number' ||
    !Number.isInteger(quorum.required) ||
    quorum.required < 1 ||
    !Array.isArray(signatures) ||
    !signatures.every((s) => typeof s === 'string')
  ) {
    return fail('not_a_receipt', 'agreement receipt fields have the wrong types');
  }
  let canonical: string;
  try {
    canonical = canonicalJson(receipt);
  } catch {
    return fail('not_a_receipt', 'receipt has no canonical JSON form');
  }
  if (canonical !== receiptText) return fail('not_canonical', 'receipt bytes are not its canonical JSON: the file was changed');
  const keys = new Map<string, KeyObject>();
  for (const text of jwksTexts) {
    const parsed = parseEd25519Jwks(text);
    if (!parsed) return fail('jwks_invalid', 'a JWKS file is not a JSON Web Key Set of Ed25519 keys');
    for (const [kid, key] of parsed) keys.set(kid, key);
  }
  const kids = new Set<string>();
  let passkeys = 0;
  /** Verifies one set of signatures over one document (the agreement's, or an amendment's): the count of `signed`, or why not. */
  const verifySet = async (
    set: string[],
    documentSha256: string,
    amendmentId: string | undefined,
    where: string,
  ): Promise<number | AgreementReceiptVerification> => {
    const parties = new Set<string>();
    let signed = 0;
    for (const [index, jws] of set.entries()) {
      let claims: Record<string, unknown>;
      try {
        const verified = await verifyCompactJws(jws, async (kid) => keys.get(kid), { typ: SIGNATURE_RECEIPT_TYP, clockToleranceSec: 300 });
        claims = verified.payload;
        kids.add(verified.header.kid);
      } catch (error) {
        if (isDomainError(error) && error.code === 'jws_unknown_kid')
          return fail('unknown_kid', `${where}[${index}]: key ${String(error.detail?.kid ?? '')} is not in the JWKS`);
        if (isDomainError(error)) return fail('bad_signature', `${where}[${index}] does not verify (${error.code})`);
        throw error;
      }
      const claimedQuorum = claims['quorum'];
      if (claims['agreement_id'] !== agreementId || claims['document_sha256'] !== documentSha256)
        return fail('inconsistent', `${where}[${index}] is about another agreement or document`);
      if (claims['amendment_id'] !== amendmentId) return fail('inconsistent', `${where}[${index}] is a vote on another amendment`);
      if (!isObject(claimedQuorum) || claimedQuorum.type !== quorum.type || claimedQuorum.required !== quorum.required)
        return fail('inconsistent', `${where}[${index}] names another quorum`);
      if (typeof claims['party_id'] !== 'string' || parties.has(claims['party_id']))
        return fail('inconsistent', `${where}[${index}] repeats a party or names none`);
      if (typeof claims['outcome'] !== 'string' || !OUTCOMES.includes(claims['outcome']))
        return fail('inconsistent', `${where}[${index}] has no signing outcome`);
      if (claims['signer_authentication'] === 'passkey' || claims['passkey_assertion'] !== undefined) {
        const problem = passkeyAssertionProblem(claims);
        if (problem) return fail('bad_passkey_assertion', `${where}[${index}]: ${problem}`);
        passkeys += 1;
      }
      parties.add(claims['party_id']);
      if (claims['outcome'] === 'signed') signed += 1;
    }
    return signed;
  };
  const counted = await verifySet(signatures as string[], digest, undefined, 'signatures');
  if (typeof counted !== 'number') return counted;
  const signed = counted;
  if (status === 'active' && signed < quorum.required)
    return fail('inconsistent', `status active needs ${quorum.required} signatures; the receipt holds ${signed}`);
  if ((status === 'pending' || status === 'partially_signed') && signed >= quorum.required)
    return fail('inconsistent', `status ${status} with the quorum of signatures reached`);
  // The chain of amendments: each replaces the document in force, adopted by the quorum of its own votes.
  let current = digest;
  const amendments = receipt.amendments;
  if (amendments !== undefined) {
    if (!Array.isArray(amendments) || amendments.length === 0) return fail('not_a_receipt', 'amendments must be a non-empty array');
    if (status !== 'active') return fail('inconsistent', 'only an active agreement has amendments');
    for (const [index, amendment] of amendments.entries()) {
      if (!isObject(amendment) || Object.keys(amendment).sort().join(',') !== AMENDMENT_FIELDS.join(','))
        return fail('not_a_receipt', `amendments[${index}] does not have exactly the amendment fields`);
      const {
        amendment_id: amendmentId,
        number,
        previous_document_sha256: previous,
        document_sha256: amended,
        status: amendmentStatus,
        signatures: votes,
      } = amendment;
      if (
        typeof amendmentId !== 'string' ||
        number !== index + 1 ||
        typeof amended !== 'string' ||
        !/^[0-9a-f]{64}$/.test(amended) ||
        typeof amendmentStatus !== 'string' ||
        !AMENDMENT_STATUSES.includes(amendmentStatus) ||
        !Array.isArray(votes) ||
        !votes.every((v) => typeof v === 'string')
      ) {
        return fail('not_a_receipt', `amendments[${index}] fields have the wrong types`);
      }
      if (previous !== current) return fail('inconsistent', `amendments[${index}] does not replace the document in force`);
      if ((amendmentStatus === 'pending' || amendmentStatus === 'partially_signed') && index !== amendments.length - 1)
        return fail('inconsistent', `amendments[${index}] is open but not the last`);
      const yes = await verifySet(votes as string[], amended, amendmentId, `amendments[${index}].signatures`);
      if (typeof yes !== 'number') return yes;
      if (amendmentStatus === 'adopted' && yes < quorum.required)
        return fail('inconsistent', `amendments[${index}] adopted with ${yes} of ${quorum.required} signatures`);
      if ((amendmentStatus === 'pending' || amendmentStatus === 'partially_signed') && yes >= quorum.required)
        return fail('inconsistent', `amendments[${index}] open with its quorum reached`);
      if (amendmentStatus === 'adopted') current = amended;
    }
  }
  if (
    documentBytes !== undefined &&
    createHash('sha256').update(documentBytes).digest('hex') !== digest &&
    createHash('sha256').update(documentBytes).digest('hex') !== current
  ) {
    return fail('document_mismatch', 'the document has neither the digest the parties signed nor that of an adopted amendment in force');
  }
  return {
    ok: true,
    agreementId,
    status,
    signed,
    required: quorum.required,
    answers: signatures.length,
    kids: [...kids],
    passkeys,
    documentSha256: current,
    amendments: Array.isArray(amendments) ? amendments.length : 0,
  };
}
