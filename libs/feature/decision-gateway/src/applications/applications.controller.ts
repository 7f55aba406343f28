import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiResponseOf } from '@svc/server';
import { AllowedOriginEnvelopeResponse, AllowedOriginResponse, ApiTokenEnvelopeResponse, ApiTokenResponse, ApplicationResponse } from './application.response';
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

/** Connect surface: an application, its allowed origins and its API tokens. */
@Controller('api/v1/applications/:application_id')
export class ApplicationsController {
  constructor(
    private readonly applications: ApplicationsRepository,
    private readonly updateApplication: UpdateApplication,
    private readonly addAllowedOrigin: AddAllowedOrigin,
    private readonly issueApiToken: IssueApiToken,
    private readonly revokeApiToken: RevokeApiToken,
  ) {}

  @Get()
  @ApiResponseOf(ApplicationResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string): Promise<Record<string, unknown>> {
    const app = await ownedApplication(this.applications, principal, id);
    return applicationView(app, await this.applications.currentPublishableKey(app.id));
  }

  @Patch()
  @ApiResponseOf(ApplicationResponse)
  async update(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string, @Body() body: UpdateApplicationBody): Promise<Record<string, unknown>> {
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
    return toPage(rows, limit, (r) => ({ origin: r.origin, created_at: r.createdAt.toISOString() }), (r) => ({ origin: r.origin }));
  }

  @Delete('allowed_origins')
  @HttpCode(204)
  async removeOrigin(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string, @Query() query: RemoveAllowedOriginQuery): Promise<void> {
    const app = await ownedApplication(this.applications, principal, id);
    const origin = canonicalOrigin(query.origin, app.environment);
    const removed = await this.applications.transaction((manager) => this.applications.removeOrigin(manager, app.id, origin));
    if (!removed) throw gatewayError('allowed_origin_not_found', 'Allowed origin not found', { origin });
  }

  /** The token is in this response only; it is stored as a SHA-256 digest. */
  @Post('api_tokens')
  @ApiResponseOf(ApiTokenEnvelopeResponse)
  async issueToken(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string, @Body() body: IssueApiTokenBody): Promise<Record<string, unknown>> {
    const { token, record } = await this.issueApiToken.execute(principal, id, body.name, body.scopes);
    return { api_token: { ...tokenView(record), token } };
  }

  @Get('api_tokens')
  @ApiResponseOf(ApiTokenResponse, { page: true })
  async listTokens(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    await ownedApplication(this.applications, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.applications.listApiTokens(id, limit + 1, after ? { createdAt: after.created_at, id: after.id } : undefined);
    return toPage(rows, limit, tokenView, (r) => ({ created_at: r.createdAt.toISOString(), id: r.id }));
  }

  @Delete('api_tokens/:api_token_id')
  @ApiResponseOf(ApiTokenEnvelopeResponse)
  async revokeToken(@CurrentPrincipal() principal: Principal, @Param('application_id') id: string, @Param('api_token_id') tokenId: string): Promise<Record<string, unknown>> {
    return { api_token: tokenView(await this.revokeApiToken.execute(principal, id, tokenId)) };
  }
}
