import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { ListTrustPairingsQuery, ProposeTrustPairingBody } from './trust-pairings.dto';
import { TrustPairingsRepository } from './trust-pairings.repository';
import { AcceptedTrustPairingResponse, TrustPairingResponse, trustPairingView } from './trust-pairings.response';
import { MoveTrustPairing, ProposeTrustPairing, visiblePairing } from './use-cases/trust-pairings.use-case';

function checkedInstant(value: string): string {
  if (Number.isNaN(Date.parse(value)))
    throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
  return value;
}

/**
 * Connect: trust pairings between two applications of a region, with mutual acceptance. The
 * issuer proposes, the counterparty accepts (and receives its counterparty token, once) or
 * declines; either side revokes. Both call with their own API token; a pairing between other
 * applications answers 404 like an unknown one.
 */
@Controller('api/v1/trust_pairings')
export class TrustPairingsController {
  constructor(
    private readonly pairings: TrustPairingsRepository,
    private readonly propose: ProposeTrustPairing,
    private readonly moveTo: MoveTrustPairing,
  ) {}

  @Post()
  @ApiDoc({
    tag: 'Connect',
    summary:
      'Propose a trust pairing: the calling application (issuer) lets a counterparty application verify its runtime receipts and/or read its consent status once it accepts',
    errors: [400, 401, 409, 422],
  })
  @ApiResponseOf(TrustPairingResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: ProposeTrustPairingBody): Promise<TrustPairingResponse> {
    const pairing = await this.propose.execute(principal, {
      counterpartyApplicationId: body.counterparty_application_id,
      scopes: body.scopes,
      name: body.name,
    });
    return trustPairingView(pairing, 'issuer');
  }

  @Get()
  @ApiDoc({
    tag: 'Connect',
    summary:
      "The calling application's trust pairings on either side, oldest first; query status, role (issuer | counterparty), limit, cursor",
    errors: [400, 401],
  })
  @ApiResponseOf(TrustPairingResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListTrustPairingsQuery): Promise<Page<TrustPairingResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['proposed_at', 'id']) : undefined;
    const rows = await this.pairings.listFor(
      principal.applicationId,
      { status: query.status, role: query.role },
      limit + 1,
      after ? { proposedAt: checkedInstant(after.proposed_at), id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (p) => trustPairingView(p, p.issuerApplicationId === principal.applicationId ? 'issuer' : 'counterparty'),
      (p) => ({ proposed_at: p.proposedAt.toISOString(), id: p.id }),
    );
  }

  @Get(':trust_pairing_id')
  @ApiDoc({ tag: 'Connect', summary: 'Read a trust pairing (either side; never its token)', errors: [401, 404, 421] })
  @ApiResponseOf(TrustPairingResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('trust_pairing_id') id: string): Promise<TrustPairingResponse> {
    const { pairing, role } = await visiblePairing(this.pairings, principal, id);
    return trustPairingView(pairing, role);
  }

  @Post(':trust_pairing_id/accept')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Connect',
    summary:
      'Accept a proposed trust pairing (the counterparty only): it becomes active and its counterparty token (ctp_…) is returned this once',
    errors: [401, 404, 409, 421],
  })
  @ApiResponseOf(AcceptedTrustPairingResponse)
  async accept(@CurrentPrincipal() principal: Principal, @Param('trust_pairing_id') id: string): Promise<AcceptedTrustPairingResponse> {
    const { pairing, role, token } = await this.moveTo.execute(principal, id, 'accept');
    return { object: 'trust_pairing_acceptance', trust_pairing: trustPairingView(pairing, role), counterparty_token: token! };
  }

  @Post(':trust_pairing_id/decline')
  @HttpCode(200)
  @ApiDoc({ tag: 'Connect', summary: 'Decline a proposed trust pairing (the counterparty only)', errors: [401, 404, 409, 421] })
  @ApiResponseOf(TrustPairingResponse)
  async decline(@CurrentPrincipal() principal: Principal, @Param('trust_pairing_id') id: string): Promise<TrustPairingResponse> {
    const { pairing, role } = await this.moveTo.execute(principal, id, 'decline');
    return trustPairingView(pairing, role);
  }

  @Post(':trust_pairing_id/revoke')
  @HttpCode(200)
  @ApiDoc({
    tag: 'Connect',
    summary: 'Revoke a proposed or active trust pairing (either side): its counterparty token is refused from this moment',
    errors: [401, 404, 409, 421],
  })
  @ApiResponseOf(TrustPairingResponse)
  async revoke(@CurrentPrincipal() principal: Principal, @Param('trust_pairing_id') id: string): Promise<TrustPairingResponse> {
    const { pairing, role } = await this.moveTo.execute(principal, id, 'revoke');
    return trustPairingView(pairing, role);
  }
}
