import { verifyDetachedJws } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { canonicalReceiptBytes } from '../flavors/canonical';
import { RECEIPT_JWS_TYP } from '../flavors/signed';
import type { ReceiptDocument } from '../record/receipt-document';
import { validateReceiptDocument } from '../schema/published-schema';
import { parseEd25519Jwks } from './ed25519-jwks';

/** Why a signed receipt failed offline verification. */
export type ReceiptVerificationFailure = 'not_a_receipt' | 'jwks_invalid' | 'schema_invalid' | 'unknown_kid' | 'bad_signature';

/** Outcome of {@link verifySignedReceipt}. */
export type ReceiptVerification =
  { ok: true; kid: string; recordId: string; recordType: string } | { ok: false; failure: ReceiptVerificationFailure; message: string };

const fail = (failure: ReceiptVerificationFailure, message: string): ReceiptVerification => ({ ok: false, failure, message });

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Verifies a `signed`-flavor receipt offline, with nothing but the receipt and a JWKS (both as
 * untrusted text): parses the envelope (`not_a_receipt`), validates `record` against the published
 * schema (`schema_invalid`), finds the header's `kid` among the JWKS keys (`unknown_kid`), and
 * checks the detached EdDSA signature over the RFC 8785 canonical bytes of `record`
 * (`bad_signature`). Keys are taken only from the supplied JWKS, never from the token.
 */
export async function verifySignedReceipt(receiptText: string, jwksText: string): Promise<ReceiptVerification> {
  let receipt: unknown;
  try {
    receipt = JSON.parse(receiptText);
  } catch {
    return fail('not_a_receipt', 'receipt file is not JSON');
  }
  if (!isObject(receipt) || !isObject(receipt.record) || !isObject(receipt.signature) || typeof receipt.signature.jws !== 'string') {
    return fail('not_a_receipt', 'not a signed svc-cr receipt: expected {record, signature: {jws}}');
  }
  const keys = parseEd25519Jwks(jwksText);
  if (!keys) return fail('jwks_invalid', 'JWKS file is not a JSON Web Key Set of Ed25519 keys');
  const check = validateReceiptDocument(receipt.record);
  if (!check.valid) {
    const first = check.problems[0];
    return fail('schema_invalid', `record does not validate against svc-cr/2.13: ${first ? `${first.path} ${first.message}` : 'invalid'}`);
  }
  const record = receipt.record as unknown as ReceiptDocument;
  let bytes: Buffer;
  try {
    bytes = canonicalReceiptBytes(record);
  } catch {
    return fail('not_a_receipt', 'record has no canonical JSON form');
  }
  try {
    const { header } = await verifyDetachedJws(receipt.signature.jws, bytes, async (kid) => keys.get(kid), { typ: RECEIPT_JWS_TYP });
    return { ok: true, kid: header.kid, recordId: record.record.record_id, recordType: record.record.record_type };
  } catch (error) {
    if (isDomainError(error) && error.code === 'jws_unknown_kid')
      return fail('unknown_kid', `signature key ${String(error.detail?.kid ?? '')} is not in the JWKS`);
    if (isDomainError(error)) return fail('bad_signature', `signature does not verify (${error.code})`);
    throw error;
  }
}
