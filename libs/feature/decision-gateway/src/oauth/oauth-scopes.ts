/**
 * Scopes the provider issues (spec, Authentication rule 5), plus `accounts`: a person's token acts
 * on their organisation accounts (and those accounts' applications) only with it, so a token given
 * to some application for sign-in never manages the person's accounts. A client asks for it only
 * when registered with it (it is not among the defaults).
 */
export const OAUTH_SCOPES = ['openid', 'profile', 'email', 'offline_access', 'audit:verify', 'disclosures:write', 'accounts'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** Client authentication at the token endpoint; `none` is a public client, whose tokens are DPoP-bound. */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'private_key_jwt', 'none'] as const;
export type ClientAuthMethod = (typeof CLIENT_AUTH_METHODS)[number];

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8693 token exchange: a person's access token (or a delegation grant) for an agent token. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const CLIENT_GRANT_TYPES = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT, TOKEN_EXCHANGE_GRANT] as const;
export type ClientGrantType = (typeof CLIENT_GRANT_TYPES)[number];

/** ID token algorithms: RS256 by default (OpenID Core requires it), EdDSA and ES256 per client. */
export const ID_TOKEN_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type IdTokenAlgorithm = (typeof ID_TOKEN_ALGORITHMS)[number];
