import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { newRegionalId, parseId } from '@svc/ids';
import { DomainError } from '@svc/errors';
import { oapError } from '../../oap.errors';
import { TrustScores } from '../trust-scores';
import { VOUCH_MAX_DAYS, type SubjectType, type Vouch, type VouchReasonCode, type VoucherType } from '../vouch';
import { VouchesRepository } from '../vouches.repository';

/** Vouches one voucher may create per UTC day (the flood limit). */
export const VOUCHES_PER_VOUCHER_PER_DAY = 50;

/** A validated request to vouch. */
export interface CreateVouchCommand {
  applicationId: string;
  voucher: { type: VoucherType; id: string };
  subject: string;
  weight: number;
  reasonCode: VouchReasonCode;
  expiresAt: Date;
  idempotencyKey: string | null;
}

/**
 * Creates a vouch and recomputes the subject's trust score in the same transaction. Limits: one
 * active vouch per voucher and subject (409 `vouch_already_active`; revoke it first to change the
 * weight), {@link VOUCHES_PER_VOUCHER_PER_DAY} per voucher per UTC day (429), never for oneself.
 * The voucher's creations are serialised by an advisory lock so the day's count cannot be raced.
 */
@Injectable()
export class CreateVouch {
  constructor(
    private readonly vouches: VouchesRepository,
    private readonly scores: TrustScores,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** The vouch, and whether this call created it (false: an Idempotency-Key replay). */
  async execute(command: CreateVouchCommand): Promise<{ vouch: Vouch; created: boolean }> {
    const now = this.clock.now();
    const requestSha256 = sha256Hex(
      canonicalJson({
        voucher: command.voucher,
        subject: command.subject,
        weight: command.weight,
        reason_code: command.reasonCode,
        expires_at: command.expiresAt.toISOString(),
      }),
    );
    if (command.idempotencyKey) {
      const earlier = await this.vouches.findByIdempotencyKey(command.applicationId, command.idempotencyKey);
      if (earlier) return this.replay(earlier, requestSha256);
    }
    const subjectType = subjectTypeOf(command.subject);
    if (command.subject === command.voucher.id)
      throw oapError('vouch_self_not_allowed', 'A party cannot vouch for itself', { field: 'subject' });
    if (command.expiresAt <= now) throw invalid('expires_at must be in the future', { field: 'expires_at' });
    if (command.expiresAt.getTime() > now.getTime() + VOUCH_MAX_DAYS * 86_400_000)
      throw invalid(`expires_at must be within ${VOUCH_MAX_DAYS} days`, { field: 'expires_at' });
    const vouch: Vouch = {
      id: newRegionalId('vouch', this.config.REGION),
      applicationId: command.applicationId,
      voucherType: command.voucher.type,
      voucherId: command.voucher.id,
      subjectType,
      subjectId: command.subject,
      weight: command.weight,
      reasonCode: command.reasonCode,
      expiresAt: command.expiresAt,
      createdAt: now,
      revokedAt: null,
    };
    try {
      return await this.vouches.transaction(async (manager) => {
        await this.vouches.lockVoucher(manager, vouch.voucherId);
        if (subjectType === 'agent' && !(await this.vouches.agentExists(manager, vouch.subjectId))) {
          throw oapError('vouch_subject_not_found', 'No agent with this id in the region', { field: 'subject' });
        }
        const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
        if ((await this.vouches.countSince(manager, vouch.voucherId, dayStart)) >= VOUCHES_PER_VOUCHER_PER_DAY) {
          const retryAfter = Math.ceil((dayStart.getTime() + 86_400_000 - now.getTime()) / 1000);
          throw oapError(
            'vouch_daily_limit_reached',
            `A voucher may create at most ${VOUCHES_PER_VOUCHER_PER_DAY} vouches per UTC day`,
            { limit: VOUCHES_PER_VOUCHER_PER_DAY },
            { 'Retry-After': String(retryAfter) },
          );
        }
        await this.vouches.retireExpiredPair(manager, vouch.voucherId, vouch.subjectId, now);
        if (!(await this.vouches.insert(manager, vouch, command.idempotencyKey, requestSha256))) {
          throw oapError('vouch_already_active', 'The voucher already has an active vouch for this subject; revoke it first', {
            field: 'subject',
          });
        }
        await this.scores.refresh(manager, vouch.subjectId, now);
        return { vouch, created: true };
      });
    } catch (error) {
      // Two requests with one Idempotency-Key: the loser answers with the winner's vouch.
      if (command.idempotencyKey && isUniqueViolation(error)) {
        const earlier = await this.vouches.findByIdempotencyKey(command.applicationId, command.idempotencyKey);
        if (earlier) return this.replay(earlier, requestSha256);
      }
      throw error;
    }
  }

  private replay(earlier: { vouch: Vouch; requestSha256: string }, requestSha256: string): { vouch: Vouch; created: boolean } {
    if (earlier.requestSha256 !== requestSha256)
      throw oapError('vouch_idempotency_key_reused', 'Idempotency-Key was used with a different request', { field: 'Idempotency-Key' });
    return { vouch: earlier.vouch, created: false };
  }
}

function subjectTypeOf(subject: string): SubjectType {
  const kind = parseId(subject)?.kind;
  if (kind === 'agent') return 'agent';
  if (kind === 'person') return 'person';
  throw invalid('subject must be an agent id (agent_…) or a person id (usr_…)', { field: 'subject' });
}

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

function invalid(message: string, detail: { field: string }): DomainError {
  return new DomainError('unprocessable', 'validation_failed', message, detail);
}
