import { defineErrors } from '@svc/errors';

/** Closed list of consent-records reason codes (flows). */
export const consentRecordsError = defineErrors({
  /** Unknown flow, malformed flow id and another application's flow answer alike. */
  flow_not_found: 'not_found',
  flow_version_not_found: 'not_found',
  /** Two purposes (or two data fields) share a key. */
  flow_duplicate_key: 'unprocessable',
  /** An ISO 8601 duration field (consent_duration, retention_period) is malformed or zero. */
  flow_duration_invalid: 'unprocessable',
});
