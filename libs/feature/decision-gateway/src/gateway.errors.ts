import { defineErrors } from '@svc/errors';

/** Closed list of decision-gateway (Connect) reason codes. */
export const gatewayError = defineErrors({
  application_not_found: 'not_found',
  api_token_not_found: 'not_found',
  allowed_origin_invalid: 'unprocessable',
  allowed_origin_requires_https: 'unprocessable',
  allowed_origin_not_found: 'not_found',
  last_api_token: 'conflict',
  /** Nothing (consent, authority, delegation grant, OAuth grant) connects the application to the signed-in person. */
  connection_not_found: 'not_found',
  // Comply: modules and governance.
  module_not_found: 'not_found',
  module_settings_invalid: 'unprocessable',
  module_rule_violated: 'unprocessable',
  governance_forbidden: 'forbidden',
  governance_policy_invalid: 'unprocessable',
  four_eyes_same_actor: 'forbidden',
  approval_required: 'conflict',
  change_request_not_found: 'not_found',
  change_request_not_pending: 'conflict',
  change_request_invalid: 'unprocessable',
});
