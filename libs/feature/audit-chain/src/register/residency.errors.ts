import { defineErrors } from '@svc/errors';

/** Closed list of the transfer register's and residency posture's reason codes. */
export const residencyError = defineErrors({
  invalid_request: 'invalid',
  lawful_basis_required: 'unprocessable',
  lawful_basis_invalid: 'unprocessable',
  transfer_not_found: 'not_found',
  period_invalid: 'invalid',
  evidence_too_large: 'unprocessable',
});
