import { defineErrors } from '@svc/errors';

/** Closed list of audit-chain reason codes. */
export const auditError = defineErrors({
  audit_entry_not_found: 'not_found',
  checkpoint_not_found: 'not_found',
  application_not_found: 'not_found',
  agent_not_found: 'not_found',
  manifest_not_found: 'not_found',
  entry_not_in_checkpoint: 'unprocessable',
  checkpoint_invalid: 'unprocessable',
  checkpoint_order_invalid: 'unprocessable',
  audit_entry_invalid: 'invalid',
  invalid_request: 'invalid',
  evidence_package_not_found: 'not_found',
  /** The period is not a date-time range of at most 366 days (`detail.field`). */
  period_invalid: 'invalid',
  /** More entries in the period than one package holds; ask for a shorter period. */
  evidence_too_large: 'unprocessable',
});
