import { defineErrors } from './domain-error';

/** Reason codes shared by every service's HTTP edge. */
export const commonError = defineErrors({
  invalid_request: 'invalid',
  malformed_json: 'invalid',
  json_too_deep: 'invalid',
  json_too_many_members: 'invalid',
  payload_too_large: 'invalid',
  unsupported_media_type: 'invalid',
  validation_failed: 'unprocessable',
  unauthenticated: 'unauthenticated',
  invalid_token: 'unauthenticated',
  forbidden: 'forbidden',
  insufficient_scope: 'forbidden',
  publishable_key_not_allowed: 'forbidden',
  not_found: 'not_found',
  route_not_found: 'not_found',
  method_not_allowed: 'not_found',
  conflict: 'conflict',
  wrong_region: 'misdirected',
  rate_limited: 'rate_limited',
  service_unavailable: 'unavailable',
  internal_error: 'internal',
});

export type CommonErrorCode = (typeof commonError.codes)[number];
