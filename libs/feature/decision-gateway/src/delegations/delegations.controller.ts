import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { DelegationGrantsService } from './delegation-grants.service';
import { OfferDelegationBody, ListDelegationsQuery } from './delegations.dto';
import { DelegationGrantResponse, delegationView } from './delegations.response';

const MAX_GRANT_DAYS = 3653;

/**
 * The Delegate surface's delegation grants, used with a person's own OAuth access token: the
 * principal offers, the delegate accepts, either revokes.
 */
@Controller('api/v1/delegations')
@Auth('access_token')
export class DelegationsController {
  constructor(
    private readonly grants: DelegationGrantsService,
    private readonly clock: Clock,
  ) {}

  @Post()
  @ApiDoc({
    summary:
      'Offer a delegation grant to another person, of any region: a delegate of another region needs a lawful basis, and the crossing is in the transfer register before the grant exists (Idempotency-Key supported)',
    tag: 'Delegate',
    errors: [400, 401, 403, 409, 422, 503],
  })
  @ApiResponseOf(DelegationGrantResponse, { status: 201 })
  async offer(@CurrentPrincipal() principal: Principal, @Body() body: OfferDelegationBody): Promise<DelegationGrantResponse> {
    const now = this.clock.now();
    const expiresAt = new Date(body.expires_at);
    if (
      Number.isNaN(expiresAt.getTime()) ||
      expiresAt.getTime() <= now.getTime() ||
      expiresAt.getTime() > now.getTime() + MAX_GRANT_DAYS * 86_400_000
    ) {
      throw new DomainError('unprocessable', 'validation_failed', 'expires_at must be in the future and at most 10 years ahead', {
        field: 'expires_at',
      });
    }
    const grant = await this.grants.offer(principal, {
      type: body.type,
      delegatePersonId: body.delegate_person_id,
      surfaces: body.surfaces,
      actions: body.actions,
      expiresAt,
      purpose: body.purpose ?? null,
      evidenceReference: body.evidence_reference ?? null,
      ...(body.lawful_basis ? { lawfulBasis: body.lawful_basis } : {}),
      ...(body.derogation_article ? { derogationArticle: body.derogation_article } : {}),
    });
    return delegationView(grant, now);
  }

  @Get()
  @ApiDoc({ summary: "The caller's delegation grants, as principal or delegate", tag: 'Delegate' })
  @ApiResponseOf(DelegationGrantResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListDelegationsQuery): Promise<Page<DelegationGrantResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.grants.list(
      principal,
      query.role,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (g) => delegationView(g, now),
      (g) => ({ created_at: g.createdAt.toISOString(), id: g.id }),
    );
  }

  @Get(':delegation_grant_id')
  @ApiDoc({ summary: 'A delegation grant of the caller', tag: 'Delegate' })
  @ApiResponseOf(DelegationGrantResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('delegation_grant_id') id: string): Promise<DelegationGrantResponse> {
    return delegationView(await this.grants.get(principal, id), this.clock.now());
  }

  @Post(':delegation_grant_id/accept')
  @HttpCode(200)
  @ApiDoc({
    summary: 'The delegate accepts an offered delegation grant (retry answers the same grant)',
    tag: 'Delegate',
    errors: [401, 403, 404, 409],
  })
  @ApiResponseOf(DelegationGrantResponse)
  async accept(@CurrentPrincipal() principal: Principal, @Param('delegation_grant_id') id: string): Promise<DelegationGrantResponse> {
    return delegationView(await this.grants.accept(principal, id), this.clock.now());
  }

  @Post(':delegation_grant_id/revoke')
  @HttpCode(200)
  @ApiDoc({
    summary: 'The principal or the delegate revokes a delegation grant (retry answers the same grant)',
    tag: 'Delegate',
    errors: [401, 403, 404],
  })
  @ApiResponseOf(DelegationGrantResponse)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('delegation_grant_id') id: string): Promise<DelegationGrantResponse> {
    return delegationView(await this.grants.revoke(principal, id), this.clock.now());
  }
}
