import { Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { oapError } from '../../oap.errors';
import { quorumOutcome, type Escalation } from '../escalation';
import { EscalationsRepository } from '../escalations.repository';
import { ResolveEscalation } from './resolve-escalation.use-case';

/** A principal's answer to an escalation. */
export type EscalationVote = 'approve' | 'deny' | 'counter';

/**
 * Records one approver's vote and applies the quorum of `escalation_bounds` (all, majority,
 * threshold) here; once the quorum is reached or out of reach the outcome is applied by
 * {@link ResolveEscalation}. For callers that collect votes one by one rather than through the
 * decisions surface's aggregated `approval.*` events. A vote at or past the approval TTL is refused
 * (`escalation_closed`, status `expired`), also before the expiry sweep has closed the escalation.
 */
@Injectable()
export class RecordEscalationVote {
  constructor(
    private readonly escalations: EscalationsRepository,
    private readonly resolve: ResolveEscalation,
    private readonly clock: Clock,
  ) {}

  async execute(escalationId: string, approverId: string, vote: EscalationVote): Promise<Escalation> {
    return this.escalations.transaction(async (manager) => {
      const escalation = await this.escalations.find(escalationId, manager, true);
      if (!escalation) throw oapError('escalation_not_found', 'Escalation not found', { escalation_id: escalationId });
      if (escalation.status !== 'pending')
        throw oapError('escalation_closed', `Escalation is already ${escalation.status}`, { status: escalation.status });
      if (this.clock.now() >= escalation.approvalTtlAt)
        throw oapError('escalation_closed', 'Escalation is already expired', { status: 'expired' });
      if (!escalation.approvers.includes(approverId))
        throw oapError('escalation_vote_not_allowed', 'Not an approver of this escalation', { approver_id: approverId });
      const votes = { ...escalation.votes, [approverId]: vote === 'approve' ? ('approve' as const) : ('deny' as const) };
      const outcome = vote === 'counter' ? 'countered' : quorumOutcome({ ...escalation, votes });
      if (outcome !== 'pending') return this.resolve.apply(manager, escalation, outcome, votes);
      await this.escalations.update(manager, escalation.id, { status: 'pending', votes });
      return { ...escalation, votes };
    });
  }
}
