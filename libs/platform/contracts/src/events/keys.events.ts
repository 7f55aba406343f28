import { SigningKeyRotatedSchema } from '../gen/svc/events/v1/keys_pb';

/** Events of the region signing keys. */
export const KEYS_EVENTS = {
  'keys.signing_key_rotated': { schema: SigningKeyRotatedSchema, version: 1 },
} as const;
