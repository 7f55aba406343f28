import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { AccountAccess, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiResponseOf } from '@svc/server';
import { PublishableKeyResponse, SandboxResetResponse } from '../accounts/accounts.response';
import { ManagePublishableKeys, type PublishableKeyRecord } from './use-cases/manage-publishable-keys.use-case';
import { ResetSandbox } from './use-cases/reset-sandbox.use-case';
import type { Environment } from './application';
import {
  AllowedOriginEnvelopeResponse,
  AllowedOriginResponse,
  ApiTokenEnvelopeResponse,
  ApiTokenResponse,
  ApplicationResponse,
} from './application.response';
import type { FastifyReply } from 'fastify';
import { gatewayError } from '../gateway.errors';
import { applicationView } from './application.response';
import { AddAllowedOriginBody, IssueApiTokenBody, RemoveAllowedOriginQuery, UpdateApplicationBody } from './applications.dto';
import { ApplicationsRepository, type ApiTokenRecord } from './applications.repository';
import { canonicalOrigin } from './origin';
import { AddAllowedOrigin } from './use-cases/add-allowed-origin.use-case';
import { IssueApiToken, RevokeApiToken } from './use-cases/manage-api-tokens.use-case';
import { ownedApplication } from './use-cases/owned-application';
import { UpdateApplication } from './use-cases/update-application.use-case';

function tokenView(record: ApiTokenRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: 'api_token',
    name: record.name,
    scopes: record.scopes,
    created_at: record.createdAt.toISOString(),
    revoked_at: record.revokedAt?.toISOString() ?? null,
  } satisfies ApiTokenResponse;
}

function publishableKeyView(record: PublishableKeyRecord, environment: Environment): PublishableKeyResponse {
  return {
    object: 'publishable_key',
    key: record.key,
    environment,
    created_at: record.createdAt.toISOString(),
    revoked_at: record.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Connect surface: an application, its allowed origins, API tokens and publishable keys, and the
 * sandbox reset. The application's API token, or its account's credentials (an account token or a
 * member's access token: reads need auditor, changes developer).
 */
@Controller('api/v1/applications/:application_id')
@AccountAccess()
export class ApplicationsController {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly updateApplication: UpdateApplication,
    private readonly addAllowedOrigin: AddAllowedOrigin,
    private readonly issueApiToken: IssueApiToken,
    private readonly revokeApiToken: RevokeApiToken,
    private readonly publishableKeys: ManagePublishableKeys,
    private readonly resetSandbox: ResetSandbox,
  ) {}

  @Get()
  @ApiResponseOf(ApplicationResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string): Promise<Record<string, unknown>> {
    const app = await ownedApplication(this.applications, principal, id);
    return applicationView(app, await this.applications.currentPublishableKey(app.id));
  }

  @Patch()
  @ApiResponseOf(ApplicationResponse)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Body() body: UpdateApplicationBody,
  ): Promise<Record<string, unknown>> {
    const app = await this.updateApplication.execute(principal, id, {
      name: body.name,
      mode: body.mode,
      capabilitiesPublished: body.capabilities_published,
      logoUrl: body.logo_url,
      brandColor: body.brand_color,
    });
    return applicationView(app, await this.applications.currentPublishableKey(app.id));
  }

  /** 201 when the origin is new, 200 when it was already registered (idempotent retry). */
  @Post('allowed_origins')
  @ApiResponseOf(AllowedOriginEnvelopeResponse, { status: 201 })
  @ApiResponseOf(AllowedOriginEnvelopeResponse, { status: 200 })
  async addOrigin(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Body() body: AddAllowedOriginBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ allowed_origin: { origin: string; created_at: string } }> {
    const result = await this.addAllowedOrigin.execute(principal, id, body.allowed_origin.origin);
    void reply.status(result.created ? 201 : 200);
    return { allowed_origin: { origin: result.origin, created_at: result.createdAt.toISOString() } };
  }

  @Get('allowed_origins')
  @ApiResponseOf(AllowedOriginResponse, { page: true })
  async listOrigins(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<{ origin: string; created_at: string }>> {
    await ownedApplication(this.applications, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['origin']).origin : undefined;
    const rows = await this.applications.listOrigins(id, limit + 1, after);
    return toPage(
      rows,
      limit,
      (r) => ({ origin: r.origin, created_at: r.createdAt.toISOString() }),
      (r) => ({ origin: r.origin }),
    );
  }

  @Delete('allowed_origins')
  @HttpCode(204)
  async removeOrigin(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: RemoveAllowedOriginQuery,
  ): Promise<void> {
    const app = await ownedApplication(this.applications, principal, id);
    const origin = canonicalOrigin(query.origin, app.environment);
    const removed = await this.applications.transaction((manager) => this.applications.removeOrigin(manager, app.id, origin));
    if (!removed) throw gatewayError('allowed_origin_not_found', 'Allowed origin not found', { origin });
  }

  /** The token is in this response only; it is stored as a SHA-256 digest. */
  @Post('api_tokens')
  @ApiResponseOf(ApiTokenEnvelopeResponse)
  async issueToken(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Body() body: IssueApiTokenBody,
  ): Promise<Record<string, unknown>> {
    const { token, record } = await this.issueApiToken.execute(principal, id, body.name, body.scopes);
    return { api_token: { ...tokenView(record), token } };
  }

  @Get('api_tokens')
  @ApiResponseOf(ApiTokenResponse, { page: true })
  async listTokens(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<Record<string, unknown>>> {
    await ownedApplication(this.applications, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.applications.listApiTokens(id, limit + 1, after ? { createdAt: after.created_at, id: after.id } : undefined);
    return toPage(rows, limit, tokenView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }));
  }

  @Delete('api_tokens/:api_token_id')
  @ApiResponseOf(ApiTokenEnvelopeResponse)
  async revokeToken(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Param('api_token_id') tokenId: string,
  ): Promise<Record<string, unknown>> {
    return { api_token: tokenView(await this.revokeApiToken.execute(principal, id, tokenId)) };
  }

  @Get('publishable_keys')
  @ApiDoc({
    tag: 'Connect',
    summary: "The application's publishable keys (pk_test_… in development, pk_live_… in production), newest last",
    errors: [400, 401, 403, 404],
  })
  @ApiResponseOf(PublishableKeyResponse, { page: true })
  async listPublishableKeys(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<PublishableKeyResponse>> {
    const app = await ownedApplication(this.applications, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'key']) : undefined;
    const rows = await this.applications.listPublishableKeys(
      id,
      limit + 1,
      after ? { createdAt: after.created_at, key: after.key } : undefined,
    );
    return toPage(
      rows,
      limit,
      (r) => publishableKeyView(r, app.environment),
      (r) => ({ created_at: r.createdAt.toISOString(), key: r.key }),
    );
  }

  @Post('publishable_keys')
  @ApiDoc({
    tag: 'Connect',
    summary: "Issue a new publishable key of the application's environment; it becomes the current one",
    errors: [401, 403, 404],
  })
  @ApiResponseOf(PublishableKeyResponse, { status: 201 })
  async issuePublishableKey(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
  ): Promise<PublishableKeyResponse> {
    const app = await ownedApplication(this.applications, principal, id);
    return publishableKeyView(await this.publishableKeys.issue(principal, id), app.environment);
  }

  @Delete('publishable_keys/:key')
  @ApiDoc({ tag: 'Connect', summary: 'Revoke a publishable key (never the last active one)', errors: [401, 403, 404, 409] })
  @ApiResponseOf(PublishableKeyResponse)
  async revokePublishableKey(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') id: string,
    @Param('key') key: string,
  ): Promise<PublishableKeyResponse> {
    const app = await ownedApplication(this.applications, principal, id);
    return publishableKeyView(await this.publishableKeys.revoke(principal, id, key), app.environment);
  }

  @Post('sandbox_reset')
  @ApiDoc({
    tag: 'Connect',
    summary:
      "Reset a development (sandbox) application's data in every service (sessions, consent records, captures, imports); 409 on a production application",
    errors: [401, 403, 404, 409],
  })
  @ApiResponseOf(SandboxResetResponse, { status: 201 })
  async sandboxReset(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string): Promise<SandboxResetResponse> {
    const reset = await this.resetSandbox.execute(principal, id);
    return {
      object: 'sandbox_reset',
      application_id: reset.applicationId,
      reset_at: reset.resetAt.toISOString(),
      sessions_deleted: reset.sessionsDeleted,
    };
  }
}
