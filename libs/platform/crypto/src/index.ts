export { canonicalJson, sha256Base64Url, sha256Hex } from './canonical-json';
export { cryptoError, type CryptoErrorCode } from './crypto.errors';
export {
  ed25519PublicJwk,
  generateEd25519KeyPair,
  importEd25519PublicJwk,
  publicJwkThumbprint,
  type Ed25519KeyPair,
  type Ed25519PublicJwk,
} from './ed25519';
export { KEY_ENVELOPE_VERSION, KeyEncryption } from './key-encryption';
export {
  DEFAULT_CLOCK_TOLERANCE_SEC,
  JWS_ALGORITHM,
  MAX_JWS_LENGTH,
  signCompactJws,
  signDetachedJws,
  verifyCompactJws,
  verifyDetachedJws,
  type DetachedJwsOptions,
  type JwsHeader,
  type JwsKeyResolver,
  type SignCompactJwsOptions,
  type VerifiedCompactJws,
  type VerifyCompactJwsOptions,
} from './jws';
export { jwsError, type JwsErrorCode } from './jws.errors';
export type { ActiveSigningKey, SigningJwk } from './signing-key';
