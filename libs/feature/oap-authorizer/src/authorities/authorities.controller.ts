import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { DEFAULT_PAGE_SIZE, IdParam, PageQuery, decodeCursor, toPage, type Page, ApiDoc, ApiResponseOf } from '@svc/server';
import { AuthorityProposalResponse, AuthorityResponse } from './authority.response';
import { oapError } from '../oap.errors';
import { AuthorityTransitionBody, CreateAuthorityBody, ProposeAuthorityBody } from './authorities.dto';
import { AuthoritiesRepository } from './authorities.repository';
import { authorityView } from './authority.response';
import type { AuthorityBounds } from './bounds';
import { CreateAuthority, CreateAuthorityCommand } from './use-cases/create-authority.use-case';
import { ResumeAuthority } from './use-cases/resume-authority.use-case';
import { RevokeAuthority } from './use-cases/revoke-authority.use-case';
import { SuspendAuthority } from './use-cases/suspend-authority.use-case';

/** Authorities of the caller's application (API token). */
@Controller('api/v1/authorities')
export class AuthoritiesController {
  constructor(
    private readonly authorities: AuthoritiesRepository,
    private readonly createAuthority: CreateAuthority,
    private readonly suspendAuthority: SuspendAuthority,
    private readonly resumeAuthority: ResumeAuthority,
    private readonly revokeAuthority: RevokeAuthority,
  ) {}

  @ApiDoc({
    summary: 'Create an authority: a standing delegation to an agent with any subset of the eight bounds',
    tag: 'OAP',
    errors: [400, 401, 404, 422],
  })
  @Post()
  @ApiResponseOf(AuthorityResponse)
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateAuthorityBody): Promise<Record<string, unknown>> {
    const { agent_id, principal_id, purposes, valid_from, valid_until, cooling_off_seconds, ...bounds } = body;
    const command = CreateAuthorityCommand.create({
      agentId: agent_id,
      principalId: principal_id,
      bounds: JSON.parse(JSON.stringify(bounds)) as AuthorityBounds,
      purposes,
      validFrom: valid_from,
      validUntil: valid_until,
      coolingOffSeconds: cooling_off_seconds,
    });
    return authorityView(await this.createAuthority.execute(principal, command));
  }

  @ApiDoc({
    summary:
      'Propose an authority: stored as proposed, it becomes active only when the signed-in person grants it on the hosted page at proposal_url',
    tag: 'OAP',
    errors: [400, 401, 404, 422],
  })
  @Post('proposals')
  @ApiResponseOf(AuthorityProposalResponse)
  async propose(@CurrentPrincipal() principal: Principal, @Body() body: ProposeAuthorityBody): Promise<Record<string, unknown>> {
    const { agent_id, purposes, valid_from, valid_until, cooling_off_seconds, ...bounds } = body;
    const command = CreateAuthorityCommand.create({
      agentId: agent_id,
      principalId: null,
      bounds: JSON.parse(JSON.stringify(bounds)) as AuthorityBounds,
      purposes,
      validFrom: valid_from,
      validUntil: valid_until,
      coolingOffSeconds: cooling_off_seconds,
    });
    const { authority, proposalUrl } = await this.createAuthority.propose(principal, command);
    return { ...authorityView(authority), proposal_url: proposalUrl };
  }

  @ApiDoc({ summary: 'List the authorities of the application (cursor pagination)', tag: 'OAP', errors: [400, 401, 422] })
  @Get()
  @ApiResponseOf(AuthorityResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.authorities.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, authorityView, (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }));
  }

  @ApiDoc({ summary: 'An authority of the application', tag: 'OAP', errors: [401, 404] })
  @Get(':authority_id')
  @ApiResponseOf(AuthorityResponse)
  async get(@CurrentPrincipal() principal: Principal, @IdParam('authority_id', 'authority') id: string): Promise<Record<string, unknown>> {
    const authority = await this.authorities.find(id);
    if (!authority || authority.applicationId !== principal.applicationId)
      throw oapError('authority_not_found', 'Authority not found', { authority_id: id });
    return authorityView(authority);
  }

  @ApiDoc({ summary: 'Suspend an active authority (authority.suspended)', tag: 'OAP', errors: [400, 401, 404, 409] })
  @Post(':authority_id/suspend')
  @ApiResponseOf(AuthorityResponse)
  async suspend(
    @CurrentPrincipal() principal: Principal,
    @IdParam('authority_id', 'authority') id: string,
    @Body() body: AuthorityTransitionBody,
  ): Promise<Record<string, unknown>> {
    return authorityView(await this.suspendAuthority.execute(principal, id, body.reason));
  }

  @ApiDoc({ summary: 'Resume a suspended authority (authority.resumed)', tag: 'OAP', errors: [400, 401, 404, 409] })
  @Post(':authority_id/resume')
  @ApiResponseOf(AuthorityResponse)
  async resume(
    @CurrentPrincipal() principal: Principal,
    @IdParam('authority_id', 'authority') id: string,
    @Body() body: AuthorityTransitionBody,
  ): Promise<Record<string, unknown>> {
    return authorityView(await this.resumeAuthority.execute(principal, id, body.reason));
  }

  @ApiDoc({
    summary:
      'Revoke an authority for good (authority.revoked): the application with its API token, or the person who granted it with their own OAuth access token',
    tag: 'OAP',
    errors: [400, 401, 404, 409],
  })
  @Post(':authority_id/revoke')
  @Auth('api_token', 'access_token')
  @ApiResponseOf(AuthorityResponse)
  async revoke(
    @CurrentPrincipal() principal: Principal,
    @IdParam('authority_id', 'authority') id: string,
    @Body() body: AuthorityTransitionBody,
  ): Promise<Record<string, unknown>> {
    return authorityView(await this.revokeAuthority.execute(principal, id, body.reason));
  }
}
