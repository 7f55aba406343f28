import { type KeyObject } from 'node:crypto';
import { CompactSign, FlattenedSign, errors as joseErrors, flattenedVerify } from 'jose';
import { canonicalJson } from './canonical-json';
import { jwsError } from './jws.errors';
import type { ActiveSigningKey } from './signing-key';

/** The only JWS algorithm signed or accepted (RFC 8037 §3.1, Ed25519 keys only). */
export const JWS_ALGORITHM = 'EdDSA';

/** Longest token `verifyCompactJws` / `verifyDetachedJws` will parse, in characters. */
export const MAX_JWS_LENGTH = 65_536;

/** Default allowance for clock skew between signer and verifier, seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SEC = 5;

/** Looks up a verification key by `kid`; undefined when unknown. `SigningKeyStore.publicKey` fits. */
export type JwsKeyResolver = (kid: string) => Promise<KeyObject | undefined>;

/** A verified JWS protected header: `alg` is always `EdDSA` and `kid` always present. */
export interface JwsHeader {
  alg: typeof JWS_ALGORITHM;
  kid: string;
  typ?: string;
  [parameter: string]: unknown;
}

/** Options of {@link signCompactJws}. */
export interface SignCompactJwsOptions {
  /** Header `typ`, e.g. `oap+jwt` for runtime receipts. */
  typ: string;
  /** Further protected header parameters; they cannot override `alg`, `kid` or `typ`. */
  extraHeader?: Record<string, unknown>;
}

/** Options of {@link verifyCompactJws}. */
export interface VerifyCompactJwsOptions {
  /**
   * Required `typ`. Compared case-insensitively with an optional `application/` prefix ignored
   * (RFC 7515 §4.1.9). When omitted, any or no `typ` is accepted — set it whenever the token kind
   * is known, so a token of one kind cannot be replayed as another (RFC 8725 §3.11).
   */
  typ?: string;
  /** Verification time. Default: now. */
  now?: Date;
  /** Allowed clock skew for `exp`, `nbf` and `iat`, seconds. Default {@link DEFAULT_CLOCK_TOLERANCE_SEC}. */
  clockToleranceSec?: number;
}

/** Options of {@link signDetachedJws} and {@link verifyDetachedJws}. */
export interface DetachedJwsOptions {
  /** Header `typ` to set, or to require when verifying (same comparison as {@link VerifyCompactJwsOptions.typ}). */
  typ?: string;
}

/** A verified compact JWS. */
export interface VerifiedCompactJws {
  header: JwsHeader;
  payload: Record<string, unknown>;
}

const RESERVED_HEADER = new Set(['alg', 'kid', 'typ', 'crit', 'b64']);
const ED25519_SIGNATURE_BYTES = 64;

/**
 * Signs `payload` as a compact JWS (RFC 7515 §7.1) with header `{alg: 'EdDSA', typ, kid}` plus
 * `extraHeader`. The payload is serialised with {@link canonicalJson}, so the same claims always
 * give the same bytes and values JSON cannot carry (NaN, undefined in arrays...) are refused
 * rather than silently altered. Throws TypeError if `extraHeader` names `alg`, `kid`, `typ`,
 * `crit` or `b64`.
 */
export async function signCompactJws(
  key: ActiveSigningKey,
  payload: Record<string, unknown>,
  options: SignCompactJwsOptions,
): Promise<string> {
  const header = { ...checkedExtraHeader(options.extraHeader), alg: JWS_ALGORITHM, typ: options.typ, kid: key.kid };
  return new CompactSign(new TextEncoder().encode(canonicalJson(payload))).setProtectedHeader(header).sign(key.privateKey);
}

/**
 * Verifies a compact JWS made by {@link signCompactJws} and returns its header and claims.
 *
 * Accepts only `alg: 'EdDSA'` (so `none` and HS256 keyed with the public key are refused before
 * any key is touched), resolves the key only from `kid` via `resolveKey` (embedded `jwk`, `jku`,
 * `x5u`, `x5c` are ignored: they are attacker-controlled), refuses `crit` and `b64` (no extension
 * is supported), and refuses non-canonical base64url so one signature has one token string. Then
 * checks, when present: `exp` (refused at or before now − tolerance), `nbf` (after now + tolerance)
 * and `iat` (after now + tolerance). Every failure is a {@link jwsError} with a stable code.
 */
export async function verifyCompactJws(
  token: string,
  resolveKey: JwsKeyResolver,
  options: VerifyCompactJwsOptions = {},
): Promise<VerifiedCompactJws> {
  const [protectedB64, payloadB64, signatureB64] = splitJws(token);
  if (payloadB64 === '') throw jwsError('jws_malformed', 'JWS payload is empty');
  const { header, payload } = await verifyParts(protectedB64, payloadB64, signatureB64, resolveKey, options.typ);
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    throw jwsError('jws_malformed', 'JWS payload is not JSON');
  }
  if (!isJsonObject(claims)) throw jwsError('jws_malformed', 'JWS payload is not a JSON object');
  checkTimeClaims(claims, options);
  return { header, payload: claims };
}

/**
 * Signs `canonicalBytes` (typically `canonicalJson(receipt)` as UTF-8) as a JWS with detached
 * content (RFC 7515 Appendix F): the compact form `header..signature` with the payload segment
 * left empty. `b64` keeps its default (true), so the signing input is
 * `base64url(header) || '.' || base64url(canonicalBytes)` and any JWS library can verify it once
 * the payload is put back.
 */
export async function signDetachedJws(
  key: ActiveSigningKey,
  canonicalBytes: Uint8Array,
  options: DetachedJwsOptions = {},
): Promise<string> {
  const header = { alg: JWS_ALGORITHM, ...(options.typ === undefined ? {} : { typ: options.typ }), kid: key.kid };
  const jws = await new FlattenedSign(canonicalBytes).setProtectedHeader(header).sign(key.privateKey);
  return `${jws.protected ?? ''}..${jws.signature}`;
}

/**
 * Verifies a detached-content JWS made by {@link signDetachedJws} over `canonicalBytes` and returns
 * its header. Refuses a JWS whose payload segment is not empty: accepting an attached payload
 * would let the signed content differ from the content being checked. Same algorithm, `kid`,
 * `typ` and failure rules as {@link verifyCompactJws}; there are no claims to check.
 */
export async function verifyDetachedJws(
  jws: string,
  canonicalBytes: Uint8Array,
  resolveKey: JwsKeyResolver,
  options: DetachedJwsOptions = {},
): Promise<{ header: JwsHeader }> {
  const [protectedB64, payloadB64, signatureB64] = splitJws(jws);
  if (payloadB64 !== '') throw jwsError('jws_malformed', 'Detached JWS must have an empty payload segment');
  const content = Buffer.from(canonicalBytes.buffer, canonicalBytes.byteOffset, canonicalBytes.byteLength).toString('base64url');
  const { header } = await verifyParts(protectedB64, content, signatureB64, resolveKey, options.typ);
  return { header };
}

function checkedExtraHeader(extra: Record<string, unknown> | undefined): Record<string, unknown> {
  for (const name of Object.keys(extra ?? {})) {
    if (RESERVED_HEADER.has(name)) throw new TypeError(`extraHeader cannot set "${name}"`);
  }
  return extra ?? {};
}

function splitJws(token: string): [string, string, string] {
  if (typeof token !== 'string' || token.length > MAX_JWS_LENGTH)
    throw jwsError('jws_malformed', 'JWS is not a string of acceptable length');
  const parts = token.split('.');
  if (parts.length !== 3) throw jwsError('jws_malformed', 'JWS must have three dot-separated segments');
  const [protectedB64 = '', payloadB64 = '', signatureB64 = ''] = parts;
  for (const segment of parts) {
    if (!isCanonicalBase64Url(segment)) throw jwsError('jws_malformed', 'JWS segment is not canonical base64url');
  }
  return [protectedB64, payloadB64, signatureB64];
}

/** Header checks, key resolution and the signature check shared by both forms. */
async function verifyParts(
  protectedB64: string,
  payloadB64: string,
  signatureB64: string,
  resolveKey: JwsKeyResolver,
  expectedTyp: string | undefined,
): Promise<{ header: JwsHeader; payload: Uint8Array }> {
  const header = parseHeader(protectedB64);
  if (expectedTyp !== undefined && (typeof header.typ !== 'string' || normaliseTyp(header.typ) !== normaliseTyp(expectedTyp))) {
    throw jwsError('jws_type_mismatch', `JWS typ must be ${expectedTyp}`);
  }
  if (Buffer.from(signatureB64, 'base64url').length !== ED25519_SIGNATURE_BYTES) {
    throw jwsError('jws_signature_invalid', 'JWS signature has the wrong length for Ed25519');
  }
  const key = await resolveKey(header.kid);
  if (!key) throw jwsError('jws_unknown_kid', 'JWS kid is not a known signing key', { kid: header.kid });
  // A resolver handing back anything but an Ed25519 public key is a wiring bug, not a bad token.
  if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`Key resolved for ${header.kid} is not an Ed25519 public key`);
  }
  try {
    // jose re-checks the allowlist: defence in depth should parseHeader ever regress.
    const result = await flattenedVerify({ protected: protectedB64, payload: payloadB64, signature: signatureB64 }, key, {
      algorithms: [JWS_ALGORITHM],
    });
    return { header, payload: result.payload };
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw jwsError('jws_signature_invalid', 'JWS signature is invalid');
    if (error instanceof joseErrors.JOSEAlgNotAllowed) throw jwsError('jws_algorithm_not_allowed', 'JWS alg must be EdDSA');
    if (error instanceof joseErrors.JOSEError) throw jwsError('jws_malformed', 'JWS is malformed');
    throw error;
  }
}

function parseHeader(protectedB64: string): JwsHeader {
  if (protectedB64 === '') throw jwsError('jws_malformed', 'JWS protected header is empty');
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(protectedB64, 'base64url')));
  } catch {
    throw jwsError('jws_malformed', 'JWS protected header is not JSON');
  }
  if (!isJsonObject(header)) throw jwsError('jws_malformed', 'JWS protected header is not a JSON object');
  // The allowlist is checked first and exactly (case-sensitive, RFC 7515 §4.1.1): `none`, HS256
  // keyed with our public key, or any other algorithm never reaches key resolution.
  if (header['alg'] !== JWS_ALGORITHM) {
    throw jwsError('jws_algorithm_not_allowed', 'JWS alg must be EdDSA', { alg: typeof header['alg'] === 'string' ? header['alg'] : null });
  }
  if ('crit' in header || 'b64' in header) throw jwsError('jws_malformed', 'JWS uses an unsupported extension (crit/b64)');
  const kid = header['kid'];
  if (typeof kid !== 'string' || kid === '' || kid.length > 256) throw jwsError('jws_malformed', 'JWS kid is missing or invalid');
  if ('typ' in header && typeof header['typ'] !== 'string') throw jwsError('jws_malformed', 'JWS typ is not a string');
  return header as JwsHeader;
}

function checkTimeClaims(claims: Record<string, unknown>, options: VerifyCompactJwsOptions): void {
  const tolerance = options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const exp = numericDate(claims, 'exp');
  const nbf = numericDate(claims, 'nbf');
  const iat = numericDate(claims, 'iat');
  if (exp !== undefined && exp <= now - tolerance) throw jwsError('jws_expired', 'JWS has expired', { exp });
  if (nbf !== undefined && nbf > now + tolerance) throw jwsError('jws_not_yet_valid', 'JWS is not valid yet', { nbf });
  if (iat !== undefined && iat > now + tolerance) throw jwsError('jws_issued_in_future', 'JWS is issued in the future', { iat });
}

/** RFC 7519 §2 NumericDate: seconds since the epoch; a present claim of another type is malformed. */
function numericDate(claims: Record<string, unknown>, name: 'exp' | 'nbf' | 'iat'): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw jwsError('jws_malformed', `JWS ${name} is not a NumericDate`);
  return value;
}

function normaliseTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Unpadded base64url whose trailing bits are zero, i.e. the unique encoding of its bytes. */
function isCanonicalBase64Url(segment: string): boolean {
  return /^[A-Za-z0-9_-]*$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment;
}
