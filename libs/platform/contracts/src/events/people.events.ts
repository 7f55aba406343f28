import {
  DataRequestChangedSchema,
  PersonCreatedSchema,
  PersonEmailVerifiedSchema,
  PersonPasskeyChangedSchema,
  PersonSignInFailuresSchema,
} from '../gen/svc/events/v1/people_pb';
import type { EventEntry } from './event-entry';

/** Events of people and sign-in (decision-gateway). */
export const PEOPLE_EVENTS = {
  'person.created': {
    schema: PersonCreatedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'A person account was created',
  },
  'person.email_verified': {
    schema: PersonEmailVerifiedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'A person verified their email address',
  },
  'person.passkey_added': {
    schema: PersonPasskeyChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'A person added a passkey',
  },
  'person.passkey_removed': {
    schema: PersonPasskeyChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'A person removed a passkey',
  },
  'person.sign_in_failures': {
    schema: PersonSignInFailuresSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'Failed sign-ins of a person, aggregated over a window',
  },
} as const satisfies Record<string, EventEntry>;

/** Data subject requests (decision-gateway, Protect): one event per change. */
export const DATA_REQUEST_EVENTS = {
  'data_request.received': {
    schema: DataRequestChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A data subject request was received; its legal clock runs',
  },
  'data_request.in_progress': {
    schema: DataRequestChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'The application started working on a data subject request',
  },
  'data_request.extended': {
    schema: DataRequestChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A data subject request’s deadline was extended once, with a reason',
  },
  'data_request.completed': {
    schema: DataRequestChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A data subject request was fulfilled',
  },
  'data_request.rejected': {
    schema: DataRequestChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: true,
    audited: true,
    meaning: 'A data subject request was rejected with a reason',
  },
} as const satisfies Record<string, EventEntry>;
