import { defineErrors } from '@svc/errors';

/**
 * Closed list of reasons a JWS is refused. Every code has kind `unauthenticated` (401): these
 * tokens are credentials or signed evidence, and RFC 6750 §3.1 answers any token that cannot be
 * trusted, malformed or not, with `invalid_token`. A surface that verifies submitted evidence
 * rather than a credential (e.g. a receipt-verification endpoint answering `valid: false`) catches
 * these and maps the code itself. Messages are safe to return; they never echo key material.
 */
export const jwsError = defineErrors({
  /** Not three canonical base64url segments, header or payload not a JSON object, bad claim types, `crit`/`b64` present. */
  jws_malformed: 'unauthenticated',
  /** `alg` is anything but `EdDSA` (covers `none` and HMAC-with-the-public-key confusion). */
  jws_algorithm_not_allowed: 'unauthenticated',
  /** No `kid` we can resolve to a verification key. */
  jws_unknown_kid: 'unauthenticated',
  /** The Ed25519 signature does not verify over the signing input. */
  jws_signature_invalid: 'unauthenticated',
  /** `exp` is at or before now minus the clock tolerance. */
  jws_expired: 'unauthenticated',
  /** `nbf` is after now plus the clock tolerance. */
  jws_not_yet_valid: 'unauthenticated',
  /** `iat` is after now plus the clock tolerance. */
  jws_issued_in_future: 'unauthenticated',
  /** `typ` is absent or differs from the expected media type. */
  jws_type_mismatch: 'unauthenticated',
});

/** A reason code of {@link jwsError}. */
export type JwsErrorCode = (typeof jwsError.codes)[number];
