import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { KeyEncryption, sha256Hex } from '@svc/crypto';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { AuthoritiesRepository } from '../../authorities/authorities.repository';
import { GrantIssuer } from '../../grants/grant-issuer';
import { grantRequestFromJson } from '../../grants/grant-request-json';
import { oapError } from '../../oap.errors';
import { OAP_OUTBOX } from '../../tokens';
import type { Escalation } from '../escalation';
import { EscalationsRepository } from '../escalations.repository';

/** An aggregated escalation outcome. */
export type EscalationOutcome = 'approved' | 'denied' | 'countered';

/**
 * Applies an escalation's aggregated outcome — from the decisions surface's `approval.granted`
 * / `approval.denied` / `approval.countered` events (see ApprovalOutcomesConsumer) or from
 * RecordEscalationVote. Countered: the counter proposal is kept for the agent's next read of the
 * escalation. Approved: the grant is issued exactly as an allow (receipt, audit event),
 * its agent token sealed until the first `GET /api/v1/oap/escalations/:id`; an outcome decided at
 * or past the approval TTL expires the escalation instead. Resolving a closed escalation again is
 * `escalation_closed`.
 */
@Injectable()
export class ResolveEscalation {
  constructor(
    private readonly escalations: EscalationsRepository,
    private readonly authorities: AuthoritiesRepository,
    private readonly issuer: GrantIssuer,
    private readonly kek: KeyEncryption,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(escalationId: string, outcome: EscalationOutcome): Promise<Escalation> {
    return this.escalations.transaction(async (manager) => {
      const escalation = await this.escalations.find(escalationId, manager, true);
      if (!escalation) throw oapError('escalation_not_found', 'Escalation not found', { escalation_id: escalationId });
      return this.apply(manager, escalation, outcome, escalation.votes);
    });
  }

  /**
   * Applies `outcome` to a row already locked by the caller's transaction. `decidedAt` is when the
   * outcome was reached (the decisions surface's event time; now by default): that, not the time
   * the outcome is processed, is held against the approval TTL, so a quorum reached before the
   * deadline on the decisions surface counts here too.
   */
  async apply(
    manager: EntityManager,
    escalation: Escalation,
    outcome: EscalationOutcome,
    votes: Escalation['votes'],
    decidedAt?: Date,
    counterProposal?: Record<string, unknown>,
  ): Promise<Escalation> {
    if (escalation.status !== 'pending')
      throw oapError('escalation_closed', `Escalation is already ${escalation.status}`, { status: escalation.status });
    const now = this.clock.now();
    if ((decidedAt ?? now) >= escalation.approvalTtlAt) return this.expire(manager, escalation, votes);
    let status: Escalation['status'] = outcome;
    let grantId: string | undefined;
    let sealed: Buffer | undefined;
    if (outcome === 'approved') {
      const authority = await this.authorities.find(escalation.authorityId, manager);
      if (!authority || authority.status !== 'active') {
        status = 'denied';
      } else {
        const request = grantRequestFromJson(JSON.parse(escalation.requestJson) as Record<string, unknown>);
        const issued = await this.issuer.issue(manager, {
          request,
          authority,
          now,
          contextHash: sha256Hex(escalation.requestJson),
          escalationId: escalation.id,
        });
        grantId = issued.grant.id;
        sealed = this.kek.encrypt(
          Buffer.from(
            JSON.stringify({ agent_token: issued.agentToken, grant_attestation: issued.receipt, iss: issued.receiptClaims.iss }),
            'utf8',
          ),
          `escalation:${escalation.id}`,
        );
      }
    }
    const proposal = status === 'countered' ? (counterProposal ?? {}) : undefined;
    await this.escalations.update(manager, escalation.id, {
      status,
      votes,
      grantId,
      agentTokenSealed: sealed,
      resolvedAt: now,
      counterProposal: proposal,
    });
    await this.outbox.add(
      manager,
      'oap.escalation_resolved',
      { escalationId: escalation.id, outcome: status, grantId: grantId ?? '' },
      { applicationId: escalation.applicationId, occurredAt: now },
    );
    return { ...escalation, status, votes, grantId: grantId ?? null, resolvedAt: now, counterProposal: proposal ?? null };
  }

  /**
   * Closes a pending escalation (row locked by the caller) as `expired`: `oap.approval_expired`
   * says so, and `oap.escalation_resolved` (outcome `expired`) keeps consumers of outcomes whole.
   */
  async expire(manager: EntityManager, escalation: Escalation, votes: Escalation['votes'] = escalation.votes): Promise<Escalation> {
    if (escalation.status !== 'pending')
      throw oapError('escalation_closed', `Escalation is already ${escalation.status}`, { status: escalation.status });
    const now = this.clock.now();
    const meta = { applicationId: escalation.applicationId, occurredAt: now };
    await this.escalations.update(manager, escalation.id, { status: 'expired', votes, resolvedAt: now });
    await this.outbox.add(
      manager,
      'oap.approval_expired',
      {
        escalationId: escalation.id,
        agentId: escalation.agentId,
        authorityId: escalation.authorityId,
        approvalTtlAt: escalation.approvalTtlAt.toISOString(),
      },
      meta,
    );
    await this.outbox.add(manager, 'oap.escalation_resolved', { escalationId: escalation.id, outcome: 'expired', grantId: '' }, meta);
    return { ...escalation, status: 'expired', votes, grantId: null, resolvedAt: now };
  }
}
