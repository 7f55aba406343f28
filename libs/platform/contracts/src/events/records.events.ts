import {
  ConsentPurposeRevokedSchema,
  ConsentRecordExpiredSchema,
  ConsentRecordRevokedSchema,
  ConsentRecordedSchema,
} from '../gen/svc/events/v1/records_pb';
import type { EventEntry } from './event-entry';

/**
 * Events of consent records (consent-records): records written by the Record API, imports,
 * committed captures and decision sessions, their withdrawals and their expiries (retention
 * sweep). The record events of a whole record go out as the public `consent.granted` /
 * `consent.denied` / `consent.revoked` webhooks (`webhook.as`). `consent.recorded` carries what the
 * record's receipt states, so the receipts service calls nobody back: the flow version's wording
 * (`notice`) and the application's name and jurisdiction (`application`).
 */
export const RECORDS_EVENTS = {
  'consent.recorded': {
    schema: ConsentRecordedSchema,
    version: 1,
    producer: 'consent-records',
    webhook: { as: ['consent.granted', 'consent.denied'] },
    audited: true,
    meaning:
      'A consent record was written (per-purpose outcomes, the wording it was made against); a decision session’s record is delivered by its session event instead',
  },
  'consent.purpose_revoked': {
    schema: ConsentPurposeRevokedSchema,
    version: 1,
    producer: 'consent-records',
    webhook: true,
    audited: true,
    meaning: 'One purpose of a consent record was withdrawn (or objected to)',
  },
  'consent.record_revoked': {
    schema: ConsentRecordRevokedSchema,
    version: 1,
    producer: 'consent-records',
    webhook: { as: ['consent.revoked'] },
    audited: true,
    meaning: 'A whole consent record was withdrawn, with the purposes granted until then',
  },
  'consent.expired': {
    schema: ConsentRecordExpiredSchema,
    version: 1,
    producer: 'consent-records',
    webhook: true,
    audited: true,
    meaning: 'The retention sweep ended a consent record (its term or a data policy’s retention)',
  },
} as const satisfies Record<string, EventEntry>;
