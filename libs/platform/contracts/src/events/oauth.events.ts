import { OAuthTokenChangedSchema } from '../gen/svc/events/v1/oauth_pb';

/** Events of the region's OpenID provider (decision-gateway); audit-chain records both. */
export const OAUTH_EVENTS = {
  'oauth.token_issued': { schema: OAuthTokenChangedSchema, version: 1 },
  'oauth.token_revoked': { schema: OAuthTokenChangedSchema, version: 1 },
} as const;
