import { createHash } from 'node:crypto';
import { compactVerify, decodeJwt, decodeProtectedHeader, errors as joseErrors, importJWK, type JWK } from 'jose';
import { CredentialFormatError } from './credential-format-error';

/** The only digest algorithm accepted for disclosures (`_sd_alg`; absent means sha-256). */
export const SD_ALG = 'sha-256';
/** `typ` of an SD-JWT key-binding JWT (RFC 9901 §4.3). */
export const KB_JWT_TYP = 'kb+jwt';

/** An SD-JWT split on `~`: `<issuer-jwt>~<disclosure>~…~[<kb-jwt>]` (RFC 9901 §4). */
export interface SdJwtParts {
  issuerJwt: string;
  disclosures: string[];
  keyBindingJwt?: string;
  /** Everything up to and including the last `~`: the bytes a key-binding JWT's `sd_hash` covers. */
  presented: string;
}

/** True when the credential uses the SD-JWT serialization. */
export function isSdJwt(token: string): boolean {
  return token.includes('~');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Splits an SD-JWT; refuses empty disclosures and a trailing part that is not a compact JWT. */
export function splitSdJwt(token: string): SdJwtParts {
  const parts = token.split('~');
  const issuerJwt = parts[0]!;
  const last = parts[parts.length - 1]!;
  const disclosures = parts.slice(1, -1);
  if (!COMPACT_JWS.test(issuerJwt)) throw new CredentialFormatError('The SD-JWT issuer-signed JWT is not a compact JWT', { format: 'sd_jwt' });
  if (disclosures.some((d) => !BASE64URL.test(d))) throw new CredentialFormatError('An SD-JWT disclosure is empty or not base64url', { format: 'sd_jwt' });
  if (last !== '' && !COMPACT_JWS.test(last)) throw new CredentialFormatError('The SD-JWT key-binding JWT is not a compact JWT', { format: 'sd_jwt' });
  return { issuerJwt, disclosures, keyBindingJwt: last === '' ? undefined : last, presented: token.slice(0, token.length - last.length) };
}

/** base64url(SHA-256(ASCII(text))): a disclosure's digest and a key-binding `sd_hash`. */
export function sdDigest(text: string): string {
  return createHash('sha256').update(text, 'ascii').digest('base64url');
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Disclosure {
  encoded: string;
  name?: string;
  value: Json;
}

function decodeDisclosure(encoded: string): Disclosure {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw new CredentialFormatError('An SD-JWT disclosure is not base64url JSON', { format: 'sd_jwt', disclosure_digest: sdDigest(encoded) });
  }
  const valid = Array.isArray(parsed) && typeof parsed[0] === 'string' && (parsed.length === 2 || (parsed.length === 3 && typeof parsed[1] === 'string'));
  if (!valid) throw new CredentialFormatError('An SD-JWT disclosure must be [salt, name, value] or [salt, value]', { format: 'sd_jwt', disclosure_digest: sdDigest(encoded) });
  const array = parsed as Json[];
  if (array.length === 2) return { encoded, value: array[1]! };
  const name = array[1] as string;
  if (name === '_sd' || name === '...') throw new CredentialFormatError(`An SD-JWT disclosure may not disclose ${name}`, { format: 'sd_jwt', disclosure_digest: sdDigest(encoded) });
  return { encoded, name, value: array[2]! };
}

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setOwn(target: { [key: string]: Json }, name: string, value: Json): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * Rebuilds the disclosed claims from the issuer-signed payload (RFC 9901 §7.1): every disclosure
 * must be referenced by exactly one digest of the payload (or of another disclosed value), no
 * digest may appear twice, a disclosed name may not overwrite a claim, object disclosures only
 * answer `_sd` digests and array-element disclosures only `{"...": digest}` entries. Digests
 * without a disclosure are undisclosed claims or decoys and are dropped. `_sd_alg` must be sha-256.
 */
export function reconstructSdJwtClaims(payload: Record<string, unknown>, encodedDisclosures: readonly string[]): Record<string, unknown> {
  const alg = payload._sd_alg ?? SD_ALG;
  if (alg !== SD_ALG) throw new CredentialFormatError(`SD-JWT _sd_alg ${String(alg)} is not supported (only ${SD_ALG})`, { format: 'sd_jwt', _sd_alg: alg });
  const byDigest = new Map<string, Disclosure>();
  for (const encoded of encodedDisclosures) {
    const digest = sdDigest(encoded);
    if (byDigest.has(digest)) throw new CredentialFormatError('An SD-JWT disclosure is presented twice', { format: 'sd_jwt', disclosure_digest: digest });
    byDigest.set(digest, decodeDisclosure(encoded));
  }
  const seen = new Set<string>();
  const used = new Set<string>();
  const claim = (digest: unknown): Disclosure | undefined => {
    if (typeof digest !== 'string') throw new CredentialFormatError('SD-JWT digests must be strings', { format: 'sd_jwt' });
    if (seen.has(digest)) throw new CredentialFormatError('An SD-JWT digest appears more than once', { format: 'sd_jwt', disclosure_digest: digest });
    seen.add(digest);
    const disclosure = byDigest.get(digest);
    if (disclosure) used.add(digest);
    return disclosure;
  };

  const walk = (node: Json): Json => {
    if (Array.isArray(node)) {
      const out: Json[] = [];
      for (const element of node) {
        if (isObject(element) && Object.keys(element).length === 1 && Object.prototype.hasOwnProperty.call(element, '...')) {
          const disclosure = claim(element['...']);
          if (!disclosure) continue;
          if (disclosure.name !== undefined) throw new CredentialFormatError('An object-property disclosure answers an array-element digest', { format: 'sd_jwt', disclosure_digest: sdDigest(disclosure.encoded) });
          out.push(walk(disclosure.value));
        } else {
          out.push(walk(element));
        }
      }
      return out;
    }
    if (!isObject(node)) return node;
    const out: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(node)) {
      if (key !== '_sd') setOwn(out, key, walk(value));
    }
    const digests = node._sd;
    if (digests === undefined) return out;
    if (!Array.isArray(digests)) throw new CredentialFormatError('SD-JWT _sd must be an array', { format: 'sd_jwt' });
    for (const digest of digests) {
      const disclosure = claim(digest);
      if (!disclosure) continue;
      if (disclosure.name === undefined) throw new CredentialFormatError('An array-element disclosure answers an _sd digest', { format: 'sd_jwt', disclosure_digest: digest });
      if (Object.prototype.hasOwnProperty.call(out, disclosure.name)) throw new CredentialFormatError(`SD-JWT disclosure of ${disclosure.name} overwrites a claim`, { format: 'sd_jwt', disclosure_digest: digest });
      setOwn(out, disclosure.name, walk(disclosure.value));
    }
    return out;
  };

  const claims = walk(payload as Json) as { [key: string]: Json };
  const unreferenced = [...byDigest.keys()].filter((digest) => !used.has(digest));
  if (unreferenced.length > 0) throw new CredentialFormatError('An SD-JWT disclosure digest is not in the signed payload', { format: 'sd_jwt', disclosure_digest: unreferenced[0] });
  delete claims._sd_alg;
  return claims;
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
 * Verifies an SD-JWT+KB's key-binding JWT (RFC 9901 §7.3): `typ` kb+jwt, signed by the holder key
 * in the issuer payload's `cnf.jwk` with an allowed algorithm, `sd_hash` over the presented
 * SD-JWT, `nonce` present, `iat` within the skew and `aud` naming this verifier.
 */
export async function verifyKeyBinding(
  parts: SdJwtParts,
  cnf: unknown,
  options: { audience: string; nowSeconds: number; skewSeconds: number; algorithms: string[] },
): Promise<void> {
  const kbJwt = parts.keyBindingJwt!;
  const holderJwk = isObject(cnf) && isObject(cnf.jwk) && typeof cnf.jwk.kty === 'string' ? (cnf.jwk as unknown as JWK) : undefined;
  if (!holderJwk) throw new KeyBindingError('malformed', 'A key-binding JWT needs cnf.jwk in the issuer-signed payload');
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(kbJwt);
    claims = decodeJwt(kbJwt);
  } catch {
    throw new KeyBindingError('malformed', 'The key-binding JWT is not parseable');
  }
  if (header.typ !== KB_JWT_TYP) throw new KeyBindingError('malformed', `The key-binding JWT typ must be ${KB_JWT_TYP}`);
  if (typeof claims.iat !== 'number' || typeof claims.nonce !== 'string' || typeof claims.sd_hash !== 'string' || claims.aud === undefined) {
    throw new KeyBindingError('malformed', 'The key-binding JWT lacks iat, aud, nonce or sd_hash');
  }
  try {
    const key = await importJWK(holderJwk, typeof header.alg === 'string' ? header.alg : undefined);
    await compactVerify(kbJwt, key, { algorithms: options.algorithms });
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) throw new KeyBindingError('signature', 'The key-binding JWT signature does not verify with cnf.jwk');
    throw error;
  }
  if (claims.sd_hash !== sdDigest(parts.presented)) throw new KeyBindingError('signature', 'The key-binding JWT sd_hash does not cover this SD-JWT');
  if (Math.abs(claims.iat - options.nowSeconds) > options.skewSeconds) throw new KeyBindingError('expired', 'The key-binding JWT iat is outside the allowed skew');
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(options.audience)) throw new KeyBindingError('audience', `The key-binding JWT aud must contain ${options.audience}`);
}
