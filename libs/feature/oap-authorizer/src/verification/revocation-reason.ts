/**
 * Why a grant was revoked, as the anonymous revocation list publishes it: a closed code (after
 * RFC 5280 CRLReason), never the application's free-text `reason`, which may name a person and
 * is answered only to the revoking application.
 */
export const REVOCATION_REASON_CODES = [
  'unspecified',
  'key_compromise',
  'superseded',
  'cessation_of_operation',
  'privilege_withdrawn',
] as const;

export type RevocationReasonCode = (typeof REVOCATION_REASON_CODES)[number];
