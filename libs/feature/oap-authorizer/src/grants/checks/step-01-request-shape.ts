/**
 * Step 1, request shape (authorization_denied). Enforced at the API edge by the DTO validation
 * pipe (400 invalid_request / 422 validation_failed) and the Idempotency-Key check; the grant
 * controller's filter stamps `denial_category` and `cascade_step: 1` on those errors.
 */
export const STEP_01_REQUEST_SHAPE = { step: 1, name: 'request_shape', category: 'authorization_denied' } as const;
