import { SigningKeyRotatedSchema } from '../gen/svc/events/v1/keys_pb';
import type { EventEntry } from './event-entry';

/** Events of the region signing keys (the admin CLI, through the `keys` outbox). */
export const KEYS_EVENTS = {
  'keys.signing_key_rotated': {
    schema: SigningKeyRotatedSchema,
    version: 1,
    producer: 'admin-cli',
    webhook: false,
    audited: false,
    meaning: 'The region’s signing key was rotated (every process reloads its key store)',
  },
} as const satisfies Record<string, EventEntry>;
