import { defineErrors } from '@svc/errors';

/** Closed list of authentication and authorization failures. */
export const authError = defineErrors({
  unauthenticated: 'unauthenticated',
  invalid_token: 'unauthenticated',
  publishable_key_not_allowed: 'forbidden',
  insufficient_scope: 'forbidden',
  delegation_grant_invalid: 'invalid',
  delegation_grant_not_found: 'forbidden',
  /** The grant was revoked by the principal or the delegate. */
  delegation_grant_revoked: 'forbidden',
  /** The grant's end date has passed. */
  delegation_grant_expired: 'forbidden',
  /** The delegate has not accepted the grant yet. */
  delegation_grant_not_accepted: 'forbidden',
  /** The grant does not cover this surface or action (`detail.surface`, `detail.action`). */
  delegation_grant_not_covering: 'forbidden',
});
