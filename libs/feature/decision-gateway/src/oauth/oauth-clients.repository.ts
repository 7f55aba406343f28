import { Injectable } from '@nestjs/common';
import { KeyEncryption } from '@svc/crypto';
import { DataSource } from 'typeorm';
import type { ClientSource } from './oidc-adapter';
import type { ClientAuthMethod, ClientGrantType, IdTokenAlgorithm } from './oauth-scopes';
import { OPENID_CREDENTIAL } from './credential-authorization';

/** An OAuth client as registered under an application (never its secret). */
export interface OAuthClient {
  clientId: string;
  applicationId: string;
  name: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  tokenEndpointAuthMethod: ClientAuthMethod;
  grantTypes: ClientGrantType[];
  scopes: string[];
  idTokenSignedResponseAlg: IdTokenAlgorithm;
  jwks: { keys: Array<Record<string, unknown>> } | null;
  createdAt: Date;
}

interface Row {
  client_id: string;
  application_id: string;
  name: string;
  metadata: {
    redirect_uris: string[];
    post_logout_redirect_uris: string[];
    token_endpoint_auth_method: ClientAuthMethod;
    grant_types: ClientGrantType[];
    scope: string;
    id_token_signed_response_alg: IdTokenAlgorithm;
    jwks?: { keys: Array<Record<string, unknown>> };
  };
  secret_enc: Buffer | null;
  created_at: Date;
}

const COLUMNS = 'client_id, application_id, name, metadata, secret_enc, created_at';

/**
 * `gateway.oauth_clients`: OAuth clients registered under applications. A confidential client's
 * secret is stored encrypted under the key-encryption key with the client id as additional data
 * (the provider must compare it, so a digest would not do); it is shown once, at registration.
 */
@Injectable()
export class OAuthClientsRepository implements ClientSource {
  constructor(
    private readonly dataSource: DataSource,
    private readonly kek: KeyEncryption,
  ) {}

  async insert(client: Omit<OAuthClient, 'createdAt'>, secret: string | null): Promise<OAuthClient> {
    const rows: Row[] = await this.dataSource.query(
      `INSERT INTO gateway.oauth_clients (client_id, application_id, name, metadata, secret_enc) VALUES ($1, $2, $3, $4::jsonb, $5) RETURNING ${COLUMNS}`,
      [
        client.clientId,
        client.applicationId,
        client.name,
        JSON.stringify({
          redirect_uris: client.redirectUris,
          post_logout_redirect_uris: client.postLogoutRedirectUris,
          token_endpoint_auth_method: client.tokenEndpointAuthMethod,
          grant_types: client.grantTypes,
          scope: client.scopes.join(' '),
          id_token_signed_response_alg: client.idTokenSignedResponseAlg,
          ...(client.jwks ? { jwks: client.jwks } : {}),
        }),
        secret === null ? null : this.kek.encrypt(Buffer.from(secret, 'utf8'), client.clientId),
      ],
    );
    return toClient(rows[0] as Row);
  }

  async find(applicationId: string, clientId: string): Promise<OAuthClient | undefined> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM gateway.oauth_clients WHERE application_id = $1 AND client_id = $2`,
      [applicationId, clientId],
    );
    return rows[0] ? toClient(rows[0]) : undefined;
  }

  async list(applicationId: string, limit: number, after?: { createdAt: string; clientId: string }): Promise<OAuthClient[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM gateway.oauth_clients WHERE application_id = $1
         AND ($2::timestamptz IS NULL OR (created_at, client_id) > ($2::timestamptz, $3::text))
       ORDER BY created_at, client_id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.clientId ?? null, limit],
    );
    return rows.map(toClient);
  }

  /** Deletes the client and everything the provider holds for it (grants, codes, tokens, pushed requests). */
  async delete(applicationId: string, clientId: string): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const deleted: Array<{ client_id: string }> = await manager.query(
        `DELETE FROM gateway.oauth_clients WHERE application_id = $1 AND client_id = $2 RETURNING client_id`,
        [applicationId, clientId],
      );
      if (deleted.length === 0) return false;
      await manager.query(
        `INSERT INTO gateway.oauth_revoked_grants (grant_id, expires_at)
           SELECT DISTINCT grant_id, now() + interval '400 days' FROM gateway.oauth_models WHERE payload->>'clientId' = $1 AND grant_id IS NOT NULL
         ON CONFLICT (grant_id) DO NOTHING`,
        [clientId],
      );
      await manager.query(`DELETE FROM gateway.oauth_models WHERE payload->>'clientId' = $1`, [clientId]);
      return true;
    });
  }

  /** The provider's view of a client (oidc-provider client metadata, secret decrypted). */
  async metadataOf(clientId: string): Promise<Record<string, unknown> | undefined> {
    const rows: Row[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM gateway.oauth_clients WHERE client_id = $1`, [clientId]);
    const row = rows[0];
    if (!row) return undefined;
    const publicClient = row.metadata.token_endpoint_auth_method === 'none';
    return {
      client_id: row.client_id,
      client_name: row.name,
      application_id: row.application_id,
      ...row.metadata,
      response_types: row.metadata.grant_types.includes('authorization_code') ? ['code'] : [],
      // Every client may ask the person for a credential of the region's issuer (OpenID4VCI §5.1.1).
      authorization_details_types: [OPENID_CREDENTIAL],
      ...(row.secret_enc ? { client_secret: this.kek.decrypt(row.secret_enc, row.client_id).toString('utf8') } : {}),
      // RFC 9449 §5.2: a public client's access and refresh tokens are always sender-constrained.
      ...(publicClient ? { dpop_bound_access_tokens: true } : {}),
    };
  }
}

function toClient(row: Row): OAuthClient {
  return {
    clientId: row.client_id,
    applicationId: row.application_id,
    name: row.name,
    redirectUris: row.metadata.redirect_uris,
    postLogoutRedirectUris: row.metadata.post_logout_redirect_uris,
    tokenEndpointAuthMethod: row.metadata.token_endpoint_auth_method,
    grantTypes: row.metadata.grant_types,
    scopes: row.metadata.scope.split(' ').filter(Boolean),
    idTokenSignedResponseAlg: row.metadata.id_token_signed_response_alg,
    jwks: row.metadata.jwks ?? null,
    createdAt: row.created_at,
  };
}
