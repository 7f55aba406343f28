import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of the OAuth client registry and the provider's own pages. */
export const oauthError = defineErrors({
  oauth_client_not_found: 'not_found',
  /** A registration field is not acceptable (the detail names it). */
  oauth_client_invalid: 'unprocessable',
});
