import { defineErrors } from '@svc/errors';

/** Closed list of authentication and authorization failures. */
export const authError = defineErrors({
  unauthenticated: 'unauthenticated',
  invalid_token: 'unauthenticated',
  publishable_key_not_allowed: 'forbidden',
  insufficient_scope: 'forbidden',
  delegation_grant_invalid: 'invalid',
  delegation_grant_not_found: 'forbidden',
});
