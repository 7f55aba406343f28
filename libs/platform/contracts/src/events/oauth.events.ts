import { OAuthTokenChangedSchema } from '../gen/svc/events/v1/oauth_pb';
import type { EventEntry } from './event-entry';

/** Events of the region's OpenID provider (decision-gateway). */
export const OAUTH_EVENTS = {
  'oauth.token_issued': {
    schema: OAuthTokenChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'The OpenID provider issued a token',
  },
  'oauth.token_revoked': {
    schema: OAuthTokenChangedSchema,
    version: 1,
    producer: 'decision-gateway',
    webhook: false,
    audited: true,
    meaning: 'A token of the OpenID provider was revoked',
  },
} as const satisfies Record<string, EventEntry>;
