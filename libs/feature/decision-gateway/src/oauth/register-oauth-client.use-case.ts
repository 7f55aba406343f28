import { Injectable } from '@nestjs/common';
import { createPublicKey } from 'node:crypto';
import { newRegionalId, randomBase64UrlSecret, type IdRegion } from './oauth-ids';
import { oauthError } from './oauth.errors';
import { OAuthClientsRepository, type OAuthClient } from './oauth-clients.repository';
import { CLIENT_GRANT_TYPES, type ClientAuthMethod, type ClientGrantType, type IdTokenAlgorithm } from './oauth-scopes';

/** What registering a client takes (already shape-checked by the DTO or the CLI). */
export interface RegisterOAuthClientCommand {
  applicationId: string;
  environment: 'development' | 'production';
  region: string;
  name: string;
  redirectUris: readonly string[];
  postLogoutRedirectUris?: readonly string[];
  tokenEndpointAuthMethod?: ClientAuthMethod;
  jwks?: { keys: Array<Record<string, unknown>> };
  grantTypes?: readonly ClientGrantType[];
  scopes?: readonly string[];
  idTokenSignedResponseAlg?: IdTokenAlgorithm;
}

const DEFAULT_SCOPES = ['openid', 'profile', 'email', 'offline_access'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Registers an OAuth client under an application. Redirect URIs are exact (no wildcard, no
 * fragment), https — or http on a loopback host for a development application — and independent of
 * the application's allowed origins. A `client_secret_basic` client gets a secret shown once.
 */
@Injectable()
export class RegisterOAuthClient {
  constructor(private readonly clients: OAuthClientsRepository) {}

  async execute(command: RegisterOAuthClientCommand): Promise<{ client: OAuthClient; secret: string | null }> {
    const method = command.tokenEndpointAuthMethod ?? 'client_secret_basic';
    const redirectUris = command.redirectUris.map((uri, i) => checkRedirectUri(uri, `redirect_uris[${i}]`, command.environment));
    const postLogout = (command.postLogoutRedirectUris ?? []).map((uri, i) =>
      checkRedirectUri(uri, `post_logout_redirect_uris[${i}]`, command.environment),
    );
    if (method === 'private_key_jwt') checkJwks(command.jwks);
    else if (command.jwks) throw oauthError('oauth_client_invalid', 'jwks is only for private_key_jwt clients', { field: 'jwks' });
    const grantTypes = [...new Set<ClientGrantType>(command.grantTypes ?? ['authorization_code', 'refresh_token'])].sort(
      (a, b) => CLIENT_GRANT_TYPES.indexOf(a) - CLIENT_GRANT_TYPES.indexOf(b),
    );
    const scopes = [...new Set(command.scopes ?? DEFAULT_SCOPES)];
    if (!scopes.includes('openid')) throw oauthError('oauth_client_invalid', 'scopes must include openid', { field: 'scopes' });
    const secret = method === 'client_secret_basic' ? randomBase64UrlSecret() : null;
    const client = await this.clients.insert(
      {
        clientId: newRegionalId('oauth_client', command.region as IdRegion),
        applicationId: command.applicationId,
        name: command.name,
        redirectUris,
        postLogoutRedirectUris: postLogout,
        tokenEndpointAuthMethod: method,
        grantTypes,
        scopes,
        idTokenSignedResponseAlg: command.idTokenSignedResponseAlg ?? 'RS256',
        jwks: command.jwks ? { keys: command.jwks.keys } : null,
      },
      secret,
    );
    return { client, secret };
  }
}

function checkRedirectUri(value: string, field: string, environment: 'development' | 'production'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw oauthError('oauth_client_invalid', `${field} must be an absolute URL`, { field });
  }
  if (url.hash || value.includes('#')) throw oauthError('oauth_client_invalid', `${field} must not have a fragment`, { field });
  if (url.username || url.password) throw oauthError('oauth_client_invalid', `${field} must not contain credentials`, { field });
  const loopbackHttp = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  if (url.protocol !== 'https:' && !(loopbackHttp && environment === 'development')) {
    throw oauthError('oauth_client_invalid', `${field} must use https (http only on localhost for a development application)`, { field });
  }
  return value;
}

function checkJwks(jwks: { keys: Array<Record<string, unknown>> } | undefined): void {
  if (!jwks) throw oauthError('oauth_client_invalid', 'jwks is required for private_key_jwt', { field: 'jwks' });
  jwks.keys.forEach((key, i) => {
    const field = `jwks.keys[${i}]`;
    if ('d' in key || 'p' in key || 'k' in key) throw oauthError('oauth_client_invalid', `${field} must be a public key`, { field });
    try {
      createPublicKey({ key: key as never, format: 'jwk' });
    } catch {
      throw oauthError('oauth_client_invalid', `${field} is not a usable public JWK`, { field });
    }
  });
}
