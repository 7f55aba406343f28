import { defineErrors } from '@svc/errors';

/**
 * Closed list of oversight-witness reason codes. Attester-token failures: `unauthenticated` /
 * `invalid_token` (401, unknown, destroyed or expired-overlap token: nothing is revealed) versus
 * `attester_suspended` (403: the token is genuine but its attester is suspended — the spec's
 * "distinct denial response").
 */
export const oversightError = defineErrors({
  unauthenticated: 'unauthenticated',
  invalid_token: 'unauthenticated',
  attester_suspended: 'forbidden',
  insufficient_permission: 'forbidden',
  application_not_permitted: 'forbidden',
  attester_not_found: 'not_found',
  attester_destroyed: 'gone',
  permission_not_requestable: 'unprocessable',
  permission_already_granted: 'conflict',
  elevation_request_not_found: 'not_found',
  elevation_request_not_pending: 'conflict',
  attestation_id_reused: 'conflict',
  sequence_number_not_monotonic: 'conflict',
  application_not_in_oversight_mode: 'conflict',
  agent_class_routed_to_conductor: 'conflict',
  application_not_found: 'not_found',
  attestation_not_found: 'not_found',
  escalation_not_pending: 'conflict',
  authzen_pdp_unreachable: 'unavailable',
  authzen_response_invalid: 'unavailable',
  policy_engine_url_invalid: 'unprocessable',
  policy_engine_credential_invalid: 'unprocessable',
  policy_engine_attester_invalid: 'unprocessable',
  policy_engine_not_found: 'not_found',
});

export type OversightErrorCode = (typeof oversightError.codes)[number];
