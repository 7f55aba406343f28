import { ConsentPurposeRevokedSchema, ConsentRecordExpiredSchema, ConsentRecordRevokedSchema, ConsentRecordedSchema } from '../gen/svc/events/v1/records_pb';

/**
 * Events of consent records (consent-records): records written by the Record API, imports and
 * committed captures, their withdrawals and their expiries (retention sweep). A whole-record
 * withdrawal also publishes the session-shaped `consent.revoked` of DECISIONS_EVENTS.
 */
export const RECORDS_EVENTS = {
  'consent.recorded': { schema: ConsentRecordedSchema, version: 1 },
  'consent.purpose_revoked': { schema: ConsentPurposeRevokedSchema, version: 1 },
  'consent.record_revoked': { schema: ConsentRecordRevokedSchema, version: 1 },
  'consent.expired': { schema: ConsentRecordExpiredSchema, version: 1 },
} as const;
