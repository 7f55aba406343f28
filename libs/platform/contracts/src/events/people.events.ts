import { DataRequestChangedSchema, PersonCreatedSchema, PersonEmailVerifiedSchema, PersonPasskeyChangedSchema, PersonSignInFailuresSchema } from '../gen/svc/events/v1/people_pb';

/** Events of people and sign-in (decision-gateway); audit-chain records every `person.*` event. */
export const PEOPLE_EVENTS = {
  'person.created': { schema: PersonCreatedSchema, version: 1 },
  'person.email_verified': { schema: PersonEmailVerifiedSchema, version: 1 },
  'person.passkey_added': { schema: PersonPasskeyChangedSchema, version: 1 },
  'person.passkey_removed': { schema: PersonPasskeyChangedSchema, version: 1 },
  'person.sign_in_failures': { schema: PersonSignInFailuresSchema, version: 1 },
} as const;

/** Data subject requests (decision-gateway, Protect): one event per change; webhooks and audit entries. */
export const DATA_REQUEST_EVENTS = {
  'data_request.received': { schema: DataRequestChangedSchema, version: 1 },
  'data_request.in_progress': { schema: DataRequestChangedSchema, version: 1 },
  'data_request.extended': { schema: DataRequestChangedSchema, version: 1 },
  'data_request.completed': { schema: DataRequestChangedSchema, version: 1 },
  'data_request.rejected': { schema: DataRequestChangedSchema, version: 1 },
} as const;
