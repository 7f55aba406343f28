import { Body, Controller, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock, faultPoint } from '@svc/config';
import { isIdOf } from '@svc/ids';
import { ApiDoc, ApiResponseOf, OwnIdempotency } from '@svc/server';
import { parseIdempotencyKey } from '@svc/persistence';
import { DomainError } from '@svc/errors';
import { ConsentRecordResponse } from './record.response';
import type { FastifyReply } from 'fastify';
import { consentRecordsError } from '../consent-records.errors';
import { recordView, type ConsentRecord } from './record';
import { RecordConsentBody, WithdrawConsentBody } from './records.dto';
import { SessionRecordEvidenceRepository } from '../sessions/session-record-evidence';
import { RecordsRepository } from './records.repository';
import { RecordConsent } from './use-cases/record-consent.use-case';
import { WithdrawConsent } from './use-cases/withdraw-consent.use-case';

const RECORD_RESPONSE =
  'consent_record: id, object, application_id, flow_id, flow_version, status (active|withdrawn|expired|superseded), subject {email, external_id}, purposes [{purpose, decision, status (granted|declined|withdrawn|expired), withdrawn_at, withdrawal_channel}], decisions, notice_digest, collection_channel, captured_at, recorded_at, expires_at, idempotency_key, previous_record_id, withdrawn_purposes, evidence (decision-session records: {principal_binding: api_token | principal_assertion | hosted_sign_in}; null otherwise)';

/** Record API and withdrawals (API token). */
@Controller('api/v1/consent_records')
export class RecordsController {
  constructor(
    private readonly recordConsent: RecordConsent,
    private readonly withdrawConsent: WithdrawConsent,
    private readonly records: RecordsRepository,
    private readonly evidence: SessionRecordEvidenceRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * 201 with a new record; 200 with the original one when the idempotency key was seen with the
   * same body (422 `idempotency_key_reused` with another). The `Idempotency-Key` header is the
   * record's `idempotency_key` (either may be sent; both must then be equal), so retries are
   * resolved inside the record group commit, with no extra round trip.
   */
  @Post()
  @OwnIdempotency(
    'the record group commit resolves the key (the header or the body field idempotency_key) in the transaction that writes the record',
  )
  @ApiDoc({
    tag: 'Consent records',
    summary: 'Record a consent captured by the organisation (controller_attested)',
    response: RECORD_RESPONSE,
    errors: [400, 401, 403, 404, 409, 421, 422],
    headers: ['Idempotency-Key'],
    replays: true,
    alsoAnswers: [200],
  })
  @ApiResponseOf(ConsentRecordResponse)
  async record(
    @CurrentPrincipal() principal: Principal,
    @Body() body: RecordConsentBody,
    @Headers('idempotency-key') header: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Record<string, unknown>> {
    const key = parseIdempotencyKey(header);
    if (key !== undefined && body.idempotency_key !== undefined && body.idempotency_key !== key) {
      throw new DomainError('unprocessable', 'validation_failed', 'The Idempotency-Key header and idempotency_key differ', {
        field: 'Idempotency-Key',
      });
    }
    const outcome = await this.recordConsent.execute(principal, key === undefined ? body : Object.assign(body, { idempotency_key: key }));
    faultPoint('record.after-commit');
    void reply.status(outcome.replayed ? 200 : 201);
    if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
    // A record just written is the head with no withdrawals, unless a later one of its batch replaced it.
    if (!outcome.replayed && !outcome.supersededInBatch) return recordView(outcome.record, [], true, this.clock.now());
    return this.view(principal, outcome.record);
  }

  @Get(':record_id')
  @ApiDoc({ tag: 'Consent records', summary: 'Read a consent record with its derived status', response: RECORD_RESPONSE })
  @ApiResponseOf(ConsentRecordResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('record_id') recordId: string): Promise<Record<string, unknown>> {
    const found = isIdOf('consent_record', recordId) ? await this.records.find(principal.applicationId, recordId) : undefined;
    if (!found) throw consentRecordsError('record_not_found', 'Consent record not found', { record_id: recordId });
    return this.view(principal, found);
  }

  /** Withdraws the whole consent, or one purpose with `purpose`; `channel` says where it was made. */
  @Post(':record_id/withdrawals')
  @HttpCode(201)
  @ApiDoc({
    tag: 'Consent records',
    summary: 'Withdraw a consent or one purpose of it',
    response: RECORD_RESPONSE,
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(ConsentRecordResponse)
  async withdraw(
    @CurrentPrincipal() principal: Principal,
    @Param('record_id') recordId: string,
    @Body() body: WithdrawConsentBody,
  ): Promise<Record<string, unknown>> {
    const record = await this.withdrawConsent.execute(principal, recordId, body.purpose, body.channel ?? 'organisation');
    return this.view(principal, record);
  }

  private async view(principal: Principal, record: ConsentRecord): Promise<Record<string, unknown>> {
    const [withdrawals, head, evidence, expiredAt] = await Promise.all([
      this.records.withdrawalsOf([record.id]),
      this.records.isHead(principal.applicationId, record),
      this.evidence.find(record.id),
      this.records.expiryOf(record.id),
    ]);
    // A data policy's retention can end a consent before its flow's term: the earlier end governs.
    const ended =
      expiredAt !== undefined && (record.expiresAt === null || expiredAt < record.expiresAt) ? { ...record, expiresAt: expiredAt } : record;
    return recordView(ended, withdrawals, head, this.clock.now(), evidence);
  }
}
