import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DomainError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, IdParam, decodeCursor, toPage, type Page } from '@svc/server';
import type { FastifyReply } from 'fastify';
import { oapError } from '../oap.errors';
import { TrustScores } from './trust-scores';
import { CreateVouch } from './use-cases/create-vouch.use-case';
import { RevokeVouch } from './use-cases/revoke-vouch.use-case';
import { vouchView, type VoucherType } from './vouch';
import { TrustScoreResponse, VouchResponse } from './vouch.response';
import { CreateVouchBody, ListVouchesQuery, SUBJECT_PATTERN } from './vouches.dto';
import { VouchesRepository } from './vouches.repository';

/** The voucher is whoever authenticated: never a field of the body. */
function voucherOf(principal: Principal): { type: VoucherType; id: string } {
  if (principal.kind === 'access_token' && principal.personId) return { type: 'person', id: principal.personId };
  if (principal.kind === 'attester_token') return { type: 'attester', id: principal.credentialId };
  return { type: 'application', id: principal.applicationId };
}

/**
 * Vouches (Verify surface): an application (API token), a person (their access token) or a trusted
 * attester vouches for an agent or a person. Each write recomputes the subject's trust score, which
 * cascade step 9 compares with an authority's `reputation_bounds`.
 */
@Controller('api/v1/vouches')
@Auth('api_token', 'access_token', 'attester_token')
export class VouchesController {
  constructor(
    private readonly vouches: VouchesRepository,
    private readonly createVouch: CreateVouch,
    private readonly revokeVouch: RevokeVouch,
    private readonly clock: Clock,
  ) {}

  @Post()
  @ApiDoc({
    summary: 'Vouch for an agent or a person with a weight, an expiry and a reason code (Idempotency-Key supported)',
    description:
      "Limits: one active vouch per voucher and subject (409 `vouch_already_active`), 50 vouches per voucher per UTC day (429 `vouch_daily_limit_reached`), never for oneself (422). The subject's trust score is recomputed in the same transaction.",
    tag: 'Verify',
    errors: [400, 401, 404, 409, 422, 429],
    headers: ['Idempotency-Key'],
    replays: true,
  })
  @ApiResponseOf(VouchResponse, { status: 201 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateVouchBody,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<VouchResponse> {
    if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) {
      throw new DomainError('invalid', 'validation_failed', 'Idempotency-Key must be 1 to 255 characters', { field: 'Idempotency-Key' });
    }
    const expiresAt = new Date(body.expires_at);
    const { vouch, created } = await this.createVouch.execute({
      applicationId: principal.applicationId,
      voucher: voucherOf(principal),
      subject: body.subject,
      weight: body.weight,
      reasonCode: body.reason_code,
      expiresAt,
      idempotencyKey: idempotencyKey ?? null,
    });
    if (!created) void reply.header('Idempotent-Replayed', 'true');
    return vouchView(vouch, this.clock.now());
  }

  @Get()
  @ApiDoc({
    summary: 'The vouches the application made (cursor pagination), optionally for one subject',
    tag: 'Verify',
    errors: [400, 401, 422],
  })
  @ApiResponseOf(VouchResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListVouchesQuery): Promise<Page<VouchResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.vouches.list(
      principal.applicationId,
      limit + 1,
      query.subject,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (vouch) => vouchView(vouch, now),
      (vouch) => ({ created_at: vouch.createdAt.toISOString(), id: vouch.id }),
    );
  }

  @Get(':vouch_id')
  @ApiDoc({ summary: 'A vouch the application made', tag: 'Verify', errors: [400, 401, 404] })
  @ApiResponseOf(VouchResponse)
  async get(@CurrentPrincipal() principal: Principal, @IdParam('vouch_id', 'vouch') vouchId: string): Promise<VouchResponse> {
    const vouch = await this.vouches.find(vouchId);
    if (vouch?.applicationId !== principal.applicationId) throw oapError('vouch_not_found', 'Vouch not found', { vouch_id: vouchId });
    return vouchView(vouch, this.clock.now());
  }

  @Post(':vouch_id/revoke')
  @HttpCode(200)
  @ApiDoc({ summary: "Revoke a vouch; the subject's trust score is recomputed at once", tag: 'Verify', errors: [400, 401, 404, 409] })
  @ApiResponseOf(VouchResponse)
  async revoke(@CurrentPrincipal() principal: Principal, @IdParam('vouch_id', 'vouch') vouchId: string): Promise<VouchResponse> {
    return vouchView(await this.revokeVouch.execute(principal.applicationId, vouchId), this.clock.now());
  }
}

/** Trust scores (Verify surface): the published formula over its inputs, computed at read time. */
@Controller('api/v1/trust_scores')
@Auth('api_token', 'access_token', 'attester_token')
export class TrustScoresController {
  constructor(
    private readonly scores: TrustScores,
    private readonly vouches: VouchesRepository,
    private readonly clock: Clock,
  ) {}

  @Get(':subject')
  @ApiDoc({
    summary: 'The trust score of an agent or a person, with the formula and the inputs it used',
    description:
      "score = clamp(0, 100, round(min(70, Σ weight of active vouches) + min(30, grants allowed in 90 days) + min(20, 2 × agent attestations accepted in 90 days) − 10 × grants revoked in 90 days − min(30, 2 × denials in 30 days, step 9 excluded))). Cascade step 9 compares it (and `vouch_count`) with an authority's `reputation_bounds`.",
    tag: 'Verify',
    errors: [400, 401],
  })
  @ApiResponseOf(TrustScoreResponse)
  async get(@Param('subject') subject: string): Promise<TrustScoreResponse> {
    if (!SUBJECT_PATTERN.test(subject))
      throw new DomainError(
        'invalid',
        'validation_failed',
        'subject must be an agent id (agent_<region>_…) or a person id (usr_<region>_…)',
        { field: 'subject' },
      );
    const computed = await this.vouches.transaction((manager) => this.scores.compute(manager, subject, this.clock.now()));
    return {
      object: 'trust_score',
      subject,
      score: computed.score,
      vouch_count: computed.vouchCount,
      inputs: computed.inputs,
      formula: computed.formula,
      formula_version: computed.formulaVersion,
      computed_at: computed.computedAt.toISOString(),
    } satisfies TrustScoreResponse;
  }
}
