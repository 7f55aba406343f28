import { createPublicKey, verify as edVerify, type KeyObject } from 'node:crypto';

/** `iss_role` values a runtime receipt may carry (spec, Runtime receipts). */
export const ISS_ROLES = ['authorizer', 'witness', 'approval_url_signer'] as const;
export type IssRole = (typeof ISS_ROLES)[number];

/** Stable failure codes of {@link verifyReceipt}. */
export type ReceiptVerificationCode =
  | 'receipt_malformed'
  | 'algorithm_not_allowed'
  | 'type_mismatch'
  | 'unknown_kid'
  | 'signature_invalid'
  | 'iss_role_missing'
  | 'iss_role_unknown'
  | 'expired'
  | 'issued_in_future';

/** Thrown for every refused receipt; `code` is stable, `message` is for humans. */
export class ReceiptVerificationError extends Error {
  constructor(
    readonly code: ReceiptVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = 'ReceiptVerificationError';
  }
}

/** An Ed25519 public JWK (RFC 8037) as published in `/.well-known/jwks.json`. */
export interface ReceiptJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid?: string;
  [member: string]: unknown;
}

/** Where verification keys come from: a JWKS document, or a lookup by `kid`. */
export type ReceiptKeySource = { keys: ReceiptJwk[] } | ((kid: string) => Promise<ReceiptJwk | undefined> | ReceiptJwk | undefined);

/** Options of {@link verifyReceipt}. */
export interface VerifyReceiptOptions {
  /** Verification keys; a `kid` not found here is `unknown_kid`. */
  keys: ReceiptKeySource;
  /** Verification time. Default: now. */
  now?: Date;
  /** Allowed clock skew for `exp` and `iat`, seconds. Default 5. */
  clockToleranceSec?: number;
  /** Roles accepted; default every role of {@link ISS_ROLES}. */
  roles?: readonly IssRole[];
}

/** A verified receipt. */
export interface VerifiedReceipt {
  header: { alg: 'EdDSA'; typ: string; kid: string };
  claims: Record<string, unknown> & { iss_role: IssRole; iat: number; exp: number };
}

/** Longest receipt parsed, characters (receipts are < 2 KB; this leaves room for other signers). */
const MAX_RECEIPT_LENGTH = 16_384;

/**
 * Verifies an OAP runtime receipt (compact JWS, `alg: EdDSA`, `typ: oap+jwt`). Throws
 * {@link ReceiptVerificationError} on a malformed token, any `alg` but EdDSA (so `none` and HS256
 * keyed with the public key never reach a key), a `kid` absent from `keys`, a bad signature, a
 * missing or unknown `iss_role`, an expired `exp` (missing counts as expired) or a future `iat`.
 * Keys come only from `keys` by `kid`: embedded `jwk`/`jku`/`x5u` headers are attacker-controlled
 * and ignored. Depends on nothing but `node:crypto`.
 */
export async function verifyReceipt(token: string, options: VerifyReceiptOptions): Promise<VerifiedReceipt> {
  if (typeof token !== 'string' || token.length > MAX_RECEIPT_LENGTH)
    throw new ReceiptVerificationError('receipt_malformed', 'Receipt is not a string of acceptable length');
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p)))
    throw new ReceiptVerificationError('receipt_malformed', 'Receipt is not a compact JWS');
  const [headerB64, payloadB64, signatureB64] = parts as [string, string, string];
  const header = parseJson(headerB64, 'header');
  if (header.alg !== 'EdDSA') throw new ReceiptVerificationError('algorithm_not_allowed', 'Receipt alg must be EdDSA');
  if ('crit' in header || 'b64' in header)
    throw new ReceiptVerificationError('receipt_malformed', 'Receipt uses an unsupported JWS extension');
  if (typeof header.typ !== 'string' || header.typ.toLowerCase().replace(/^application\//, '') !== 'oap+jwt')
    throw new ReceiptVerificationError('type_mismatch', 'Receipt typ must be oap+jwt');
  if (typeof header.kid !== 'string' || header.kid === '') throw new ReceiptVerificationError('unknown_kid', 'Receipt has no kid');
  const jwk = await resolveKey(options.keys, header.kid);
  if (!jwk) throw new ReceiptVerificationError('unknown_kid', `kid ${header.kid} is not a known key`);
  let key: KeyObject;
  try {
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') throw new Error('not an Ed25519 key');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, format: 'jwk' });
  } catch {
    throw new ReceiptVerificationError('unknown_kid', `kid ${header.kid} is not an Ed25519 public key`);
  }
  const signature = Buffer.from(signatureB64, 'base64url');
  const signingInput = Buffer.from(`${headerB64}.${payloadB64}`, 'ascii');
  if (signature.length !== 64 || !edVerify(null, signingInput, key, signature))
    throw new ReceiptVerificationError('signature_invalid', 'Receipt signature is invalid');
  const claims = parseJson(payloadB64, 'payload');
  if (claims.iss_role === undefined) throw new ReceiptVerificationError('iss_role_missing', 'Receipt has no iss_role');
  const roles = options.roles ?? ISS_ROLES;
  if (typeof claims.iss_role !== 'string' || !(roles as readonly string[]).includes(claims.iss_role))
    throw new ReceiptVerificationError('iss_role_unknown', `iss_role ${String(claims.iss_role)} is not accepted`);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.clockToleranceSec ?? 5;
  if (typeof claims.exp !== 'number' || claims.exp <= now - tolerance) throw new ReceiptVerificationError('expired', 'Receipt has expired');
  if (typeof claims.iat !== 'number' || claims.iat > now + tolerance)
    throw new ReceiptVerificationError('issued_in_future', 'Receipt iat is in the future');
  return { header: { alg: 'EdDSA', typ: header.typ, kid: header.kid }, claims: claims as VerifiedReceipt['claims'] };
}

async function resolveKey(source: ReceiptKeySource, kid: string): Promise<ReceiptJwk | undefined> {
  if (typeof source === 'function') return source(kid);
  return source.keys.find((k) => k.kid === kid);
}

function parseJson(segment: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new ReceiptVerificationError('receipt_malformed', `Receipt ${what} is not a JSON object`);
}
