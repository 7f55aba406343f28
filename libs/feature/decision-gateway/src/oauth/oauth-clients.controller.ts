import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AccountAccess, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { ApplicationsRepository } from '../applications/applications.repository';
import { ownedApplication } from '../applications/use-cases/owned-application';
import { oauthError } from './oauth.errors';
import { OAuthClientsRepository, type OAuthClient } from './oauth-clients.repository';
import { RegisterOAuthClientBody } from './oauth-clients.dto';
import { OAuthClientResponse } from './oauth-clients.response';
import { RegisterOAuthClient } from './register-oauth-client.use-case';

export function oauthClientView(client: OAuthClient): OAuthClientResponse {
  return {
    client_id: client.clientId,
    object: 'oauth_client',
    application_id: client.applicationId,
    name: client.name,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    scopes: client.scopes,
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    jwks: client.jwks,
    created_at: client.createdAt.toISOString(),
  } satisfies OAuthClientResponse;
}

/**
 * OAuth clients registered under an application: its API token, or its account's credentials
 * (reads auditor, changes developer).
 */
@Controller('api/v1/applications/:application_id/oauth_clients')
@AccountAccess()
export class OAuthClientsController {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly clients: OAuthClientsRepository,
    private readonly register: RegisterOAuthClient,
  ) {}

  /** The secret (client_secret_basic) is in this answer only. */
  @Post()
  @ApiResponseOf(OAuthClientResponse, { status: 201 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Body() body: RegisterOAuthClientBody,
  ): Promise<OAuthClientResponse> {
    const app = await ownedApplication(this.applications, principal, id);
    const { client, secret } = await this.register.execute({
      applicationId: app.id,
      environment: app.environment,
      region: app.region,
      name: body.name,
      redirectUris: body.redirect_uris,
      postLogoutRedirectUris: body.post_logout_redirect_uris,
      tokenEndpointAuthMethod: body.token_endpoint_auth_method,
      jwks: body.jwks,
      grantTypes: body.grant_types,
      scopes: body.scopes,
      idTokenSignedResponseAlg: body.id_token_signed_response_alg,
    });
    return { ...oauthClientView(client), ...(secret === null ? {} : { client_secret: secret }) };
  }

  @Get()
  @ApiResponseOf(OAuthClientResponse, { page: true })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<OAuthClientResponse>> {
    await ownedApplication(this.applications, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'client_id']) : undefined;
    const rows = await this.clients.list(id, limit + 1, after ? { createdAt: after.created_at, clientId: after.client_id } : undefined);
    return toPage(rows, limit, oauthClientView, (c) => ({ created_at: c.createdAt.toISOString(), client_id: c.clientId }));
  }

  @Get(':client_id')
  @ApiResponseOf(OAuthClientResponse)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Param('client_id') clientId: string,
  ): Promise<OAuthClientResponse> {
    await ownedApplication(this.applications, principal, id);
    const client = await this.clients.find(id, clientId);
    if (!client) throw oauthError('oauth_client_not_found', 'OAuth client not found', { client_id: clientId });
    return oauthClientView(client);
  }

  /** Deletes the client and revokes every grant and token issued to it. */
  @Delete(':client_id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Param('client_id') clientId: string,
  ): Promise<void> {
    await ownedApplication(this.applications, principal, id);
    if (!(await this.clients.delete(id, clientId)))
      throw oauthError('oauth_client_not_found', 'OAuth client not found', { client_id: clientId });
  }
}
