import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of the hosted pages and their endpoints. */
export const hostedError = defineErrors({
  /** redirect_uri is not an absolute http(s) URL without query/fragment on one of the allowed origins. */
  redirect_uri_not_allowed: 'invalid',
  /** A CORS preflight from an origin absent from the application's allowed origins (or no application named). */
  cors_origin_not_allowed: 'forbidden',
  /** Unknown schema name under /schemas/postmessage/v2/. */
  schema_not_found: 'not_found',
  application_not_found: 'not_found',
});
