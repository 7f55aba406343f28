import { PersonCreatedSchema, PersonEmailVerifiedSchema, PersonPasskeyChangedSchema, PersonSignInFailuresSchema } from '../gen/svc/events/v1/people_pb';

/** Events of people and sign-in (decision-gateway); audit-chain records every `person.*` event. */
export const PEOPLE_EVENTS = {
  'person.created': { schema: PersonCreatedSchema, version: 1 },
  'person.email_verified': { schema: PersonEmailVerifiedSchema, version: 1 },
  'person.passkey_added': { schema: PersonPasskeyChangedSchema, version: 1 },
  'person.passkey_removed': { schema: PersonPasskeyChangedSchema, version: 1 },
  'person.sign_in_failures': { schema: PersonSignInFailuresSchema, version: 1 },
} as const;
