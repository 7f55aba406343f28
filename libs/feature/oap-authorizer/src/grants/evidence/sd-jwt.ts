import { createHash } from 'node:crypto';
import { KBJwt, SDJwtInstance, type SDJwt } from '@sd-jwt/core';
import { compactVerify, errors as joseErrors, importJWK, type JWK } from 'jose';
import { CredentialFormatError } from './credential-format-error';

/** The only digest algorithm accepted for disclosures (`_sd_alg`; absent means sha-256). */
export const SD_ALG = 'sha-256';

const malformed = (message: string, detail: Record<string, unknown> = {}) =>
  new CredentialFormatError(message, { format: 'sd_jwt', ...detail });
const unsupportedAlg = (alg: unknown) => malformed(`SD-JWT _sd_alg ${String(alg)} is not supported (only ${SD_ALG})`, { _sd_alg: alg });

/** The hasher @sd-jwt/core digests disclosures with: node:crypto SHA-256, nothing else. */
function sha256(data: string | ArrayBuffer, alg: string): Uint8Array {
  if (alg !== SD_ALG) throw unsupportedAlg(alg);
  return createHash('sha256')
    .update(typeof data === 'string' ? data : new Uint8Array(data))
    .digest();
}

/** Decodes SD-JWTs and rebuilds their claims; the issuer JWT is verified by the trust-list path. */
const sdJwts = new SDJwtInstance({ hasher: sha256, hashAlg: SD_ALG });

/** base64url(SHA-256(text)): a disclosure's digest and a key-binding `sd_hash`. */
export function sdDigest(text: string): string {
  return Buffer.from(sha256(text, SD_ALG)).toString('base64url');
}

/** True when the credential uses the SD-JWT serialization. */
export function isSdJwt(token: string): boolean {
  return token.includes('~');
}

/** An SD-JWT split on `~`: `<issuer-jwt>~<disclosure>~…~[<kb-jwt>]` (RFC 9901 §4). */
export interface SdJwtParts {
  issuerJwt: string;
  disclosures: string[];
  keyBindingJwt?: string;
  /** Everything up to and including the last `~`: the bytes a key-binding JWT's `sd_hash` covers. */
  presented: string;
}

/** The SD-JWT as @sd-jwt/core decoded it (without the key-binding JWT), and its parts. */
export interface DecodedSdJwt extends SdJwtParts {
  sdJwt: SDJwt;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
/** A base64url SHA-256 digest; the library looks digests up in a plain object, where `constructor` would match. */
const DIGEST = /^[A-Za-z0-9_-]{43}$/;

/**
 * Splits an SD-JWT and checks each part's characters, which the library does not (it splits on `~`
 * and `.` and decodes base64 leniently): empty disclosures and a trailing part that is not a
 * compact JWT are refused.
 */
export function splitSdJwt(token: string): SdJwtParts {
  const parts = token.split('~');
  const issuerJwt = parts[0]!;
  const last = parts[parts.length - 1]!;
  const disclosures = parts.slice(1, -1);
  if (!COMPACT_JWS.test(issuerJwt)) throw malformed('The SD-JWT issuer-signed JWT is not a compact JWT');
  if (disclosures.some((d) => !BASE64URL.test(d))) throw malformed('An SD-JWT disclosure is empty or not base64url');
  if (last !== '' && !COMPACT_JWS.test(last)) throw malformed('The SD-JWT key-binding JWT is not a compact JWT');
  return { issuerJwt, disclosures, keyBindingJwt: last === '' ? undefined : last, presented: token.slice(0, token.length - last.length) };
}

/**
 * Each disclosure is `[salt, name, value]` or `[salt, value]` with a string salt and name, and
 * does not disclose `_sd`, `...`, `__proto__` or an empty name. The library checks only the
 * arity, and not per disclosure, so this keeps `detail.disclosure_digest` on each refusal.
 */
function checkDisclosure(encoded: string, digest: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw malformed('An SD-JWT disclosure is not base64url JSON', { disclosure_digest: digest });
  }
  if (
    !Array.isArray(parsed) ||
    typeof parsed[0] !== 'string' ||
    !(parsed.length === 2 || (parsed.length === 3 && typeof parsed[1] === 'string'))
  ) {
    throw malformed('An SD-JWT disclosure must be [salt, name, value] or [salt, value]', { disclosure_digest: digest });
  }
  const name: unknown = parsed.length === 3 ? parsed[1] : undefined;
  if (name === '_sd' || name === '...' || name === '__proto__' || name === '')
    throw malformed(`An SD-JWT disclosure may not disclose ${name === '' ? 'an empty name' : name}`, { disclosure_digest: digest });
}

type Disclosure = NonNullable<SDJwt['disclosures']>[number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The RFC 9901 §7.1 refusals that @sd-jwt/core's `getClaims` does not make (it ignores a
 * disclosure no digest references, applies a repeated digest twice, lets a disclosure overwrite a
 * signed claim, drops an array-element disclosure listed in `_sd`, and applies a named one listed
 * as `{"...": digest}`): every disclosure answers exactly one digest, no digest appears twice,
 * `_sd` is an array of digests answered by named disclosures only, `{"...": digest}` (alone in its
 * object) by unnamed ones only, and no disclosed name overwrites a claim. Claim names `...` and
 * `__proto__` are refused too: the library would read them as a digest or as the prototype.
 */
function checkDigestReferences(payload: Record<string, unknown>, byDigest: ReadonlyMap<string, Disclosure>): void {
  const seen = new Set<string>();
  const answer = (digest: unknown): Disclosure | undefined => {
    if (typeof digest !== 'string' || !DIGEST.test(digest)) throw malformed('SD-JWT digests must be strings of base64url SHA-256');
    if (seen.has(digest)) throw malformed('An SD-JWT digest appears more than once', { disclosure_digest: digest });
    seen.add(digest);
    return byDigest.get(digest);
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const element of node) {
        if (!isObject(element) || !Object.hasOwn(element, '...')) {
          visit(element);
          continue;
        }
        if (Object.keys(element).length !== 1) throw malformed('An SD-JWT array-element digest {"...": digest} has other keys');
        const disclosure = answer(element['...']);
        if (disclosure?.key !== undefined)
          throw malformed('An object-property disclosure answers an array-element digest', { disclosure_digest: element['...'] });
        if (disclosure) visit(disclosure.value);
      }
      return;
    }
    if (!isObject(node)) return;
    const names = new Set(Object.keys(node));
    for (const [name, value] of Object.entries(node)) {
      if (name === '...' || name === '__proto__') throw malformed(`SD-JWT claim name ${name} is not supported`);
      if (name !== '_sd') visit(value);
    }
    if (node._sd === undefined) return;
    if (!Array.isArray(node._sd)) throw malformed('SD-JWT _sd must be an array');
    for (const digest of node._sd) {
      const disclosure = answer(digest);
      if (!disclosure) continue;
      if (disclosure.key === undefined) throw malformed('An array-element disclosure answers an _sd digest', { disclosure_digest: digest });
      if (names.has(disclosure.key))
        throw malformed(`SD-JWT disclosure of ${disclosure.key} overwrites a claim`, { disclosure_digest: digest });
      names.add(disclosure.key);
      visit(disclosure.value);
    }
  };
  visit(payload);
  const unreferenced = [...byDigest.keys()].find((digest) => !seen.has(digest));
  if (unreferenced !== undefined)
    throw malformed('An SD-JWT disclosure digest is not in the signed payload', { disclosure_digest: unreferenced });
}

/**
 * Decodes the SD-JWT with @sd-jwt/core and rebuilds the disclosed claims (RFC 9901 §7.1): the
 * library maps each disclosure to its digest and applies it (nested objects and array elements
 * included); digests without a disclosure are undisclosed claims or decoys and are dropped.
 * `payload` is the issuer-signed payload as already decoded. The key-binding JWT is decoded only
 * by {@link verifyKeyBinding}, after the issuer signature, as before.
 */
export async function decodeSdJwt(
  parts: SdJwtParts,
  payload: Record<string, unknown>,
): Promise<{ sdJwt: DecodedSdJwt; claims: Record<string, unknown> }> {
  // The library reads a missing or non-string _sd_alg as sha-256; only absent means that.
  if (payload._sd_alg !== undefined && payload._sd_alg !== SD_ALG) throw unsupportedAlg(payload._sd_alg);
  const digests = new Set<string>();
  for (const encoded of parts.disclosures) {
    const digest = sdDigest(encoded);
    if (digests.has(digest)) throw malformed('An SD-JWT disclosure is presented twice', { disclosure_digest: digest });
    digests.add(digest);
    checkDisclosure(encoded, digest);
  }
  let sdJwt: SDJwt;
  try {
    sdJwt = await sdJwts.decode(parts.presented);
  } catch (error) {
    if (error instanceof CredentialFormatError) throw error;
    throw malformed('agent_credential is not a parseable SD-JWT');
  }
  const byDigest = new Map<string, Disclosure>();
  for (const disclosure of sdJwt.disclosures ?? []) byDigest.set(await disclosure.digest({ hasher: sha256, alg: SD_ALG }), disclosure);
  checkDigestReferences(sdJwt.jwt!.payload!, byDigest);
  const claims = await sdJwt.getClaims<Record<string, unknown>>(sha256);
  return { sdJwt: { ...parts, sdJwt }, claims };
}

/** Why a key-binding JWT was refused; the verifier maps each to its credential reason code. */
export type KeyBindingFailure = 'malformed' | 'signature' | 'expired' | 'audience';

export class KeyBindingError extends Error {
  constructor(
    readonly failure: KeyBindingFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Verifies an SD-JWT+KB's key-binding JWT (RFC 9901 §7.3). @sd-jwt/core's `KBJwt.verifyKB` checks
 * `typ` kb+jwt, an `alg` other than none, that `iat`, `aud`, `nonce` and `sd_hash` are present,
 * and the signature through the callback below (the holder key in the issuer payload's `cnf.jwk`,
 * allowed algorithms only). The library never checks a key-binding `iat` or `aud`, and compares
 * `sd_hash` only inside `SDJwtInstance.verify`, which first re-checks the issuer JWT's times by
 * its own rules and would change the reason codes; so the `sd_hash` over the library's encoding
 * of the presentation, `iat` within the skew and `aud` are checked here. This API issues no
 * nonce: any is accepted, and the credential's `(iss, jti)` is single-use.
 */
export async function verifyKeyBinding(
  sdJwt: DecodedSdJwt,
  cnf: unknown,
  options: { audience: string; nowSeconds: number; skewSeconds: number; algorithms: string[] },
): Promise<void> {
  const holderJwk = isObject(cnf) && isObject(cnf.jwk) && typeof cnf.jwk.kty === 'string' ? (cnf.jwk as unknown as JWK) : undefined;
  if (!holderJwk) throw new KeyBindingError('malformed', 'A key-binding JWT needs cnf.jwk in the issuer-signed payload');
  let kbJwt: KBJwt;
  try {
    kbJwt = KBJwt.fromKBEncode(sdJwt.keyBindingJwt!);
  } catch {
    throw new KeyBindingError('malformed', 'The key-binding JWT is not parseable');
  }
  const claims: Record<string, unknown> | undefined = isObject(kbJwt.payload) ? kbJwt.payload : undefined;
  // The library only checks that these are truthy.
  if (typeof claims?.iat !== 'number' || typeof claims.nonce !== 'string' || typeof claims.sd_hash !== 'string') {
    throw new KeyBindingError('malformed', 'The key-binding JWT lacks iat, aud, nonce or sd_hash');
  }
  const alg = kbJwt.header?.alg;
  const verifyHolderSignature = async (signingInput: string, signature: string): Promise<boolean> => {
    try {
      await compactVerify(`${signingInput}.${signature}`, await importJWK(holderJwk, typeof alg === 'string' ? alg : undefined), {
        algorithms: options.algorithms,
      });
      return true;
    } catch (error) {
      if (error instanceof joseErrors.JOSEError || error instanceof TypeError)
        throw new KeyBindingError('signature', 'The key-binding JWT signature does not verify with cnf.jwk');
      throw error;
    }
  };
  try {
    await kbJwt.verifyKB({ verifier: verifyHolderSignature, payload: { cnf: { jwk: holderJwk } }, nonce: claims.nonce });
  } catch (error) {
    if (error instanceof KeyBindingError) throw error;
    if (error instanceof Error && error.name === 'SDJWTException')
      throw new KeyBindingError('malformed', 'The key-binding JWT must be typ kb+jwt with alg, iat, aud, nonce and sd_hash');
    throw error;
  }
  if (claims.sd_hash !== sdDigest(sdJwt.sdJwt.encodeSDJwt()))
    throw new KeyBindingError('signature', 'The key-binding JWT sd_hash does not cover this SD-JWT');
  if (Math.abs(claims.iat - options.nowSeconds) > options.skewSeconds)
    throw new KeyBindingError('expired', 'The key-binding JWT iat is outside the allowed skew');
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(options.audience))
    throw new KeyBindingError('audience', `The key-binding JWT aud must contain ${options.audience}`);
}
