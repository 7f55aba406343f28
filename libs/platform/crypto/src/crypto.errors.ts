import { defineErrors } from '@svc/errors';

/**
 * Closed list of reason codes of canonicalisation and key handling. Everything here except
 * `canonical_json_unrepresentable` is an operator-side failure (configuration, database state),
 * never something a caller can fix, so it maps to 5xx and must not leak detail to clients.
 */
export const cryptoError = defineErrors({
  /** The value has no RFC 8785 form (NaN, Infinity, lone surrogate, function, bigint...). Input-driven, so 400. */
  canonical_json_unrepresentable: 'invalid',
  /** The key-encryption key is not base64 of exactly 32 bytes. Boot-time configuration error. */
  key_encryption_key_invalid: 'internal',
  /** An envelope did not authenticate: wrong KEK, wrong row (aad), tampering or unknown format version. */
  key_decryption_failed: 'internal',
  /** The region name cannot form a `kid` (`oap-<region>-v<N>`). */
  signing_region_invalid: 'internal',
  /** No active signing key for the region; `ensureActiveKey()` was not run at boot. */
  signing_key_unavailable: 'unavailable',
  /** A stored private key does not match its stored public key: the row was altered. */
  signing_key_corrupt: 'internal',
});

/** A reason code of {@link cryptoError}. */
export type CryptoErrorCode = (typeof cryptoError.codes)[number];
