import { defineErrors } from '@svc/errors';

/** Closed list of decision-gateway (Connect) reason codes. */
export const gatewayError = defineErrors({
  application_not_found: 'not_found',
  api_token_not_found: 'not_found',
  allowed_origin_invalid: 'unprocessable',
  allowed_origin_requires_https: 'unprocessable',
  allowed_origin_not_found: 'not_found',
  last_api_token: 'conflict',
});
