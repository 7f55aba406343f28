import { newRegionalId, type IdRegion } from '@svc/ids';
import type { EscalationResponse } from './escalation.response';

/** Outcome states of an escalation. */
export type EscalationStatus = 'pending' | 'approved' | 'denied' | 'countered' | 'expired';

/** An approval request opened by cascade step 10, awaiting the principal(s). */
export interface Escalation {
  id: string;
  applicationId: string;
  agentId: string;
  authorityId: string;
  principalId: string;
  status: EscalationStatus;
  quorumType: 'all' | 'majority' | 'threshold';
  approvers: string[];
  /** Approvals needed (derived from the quorum type when not a threshold). */
  threshold: number;
  /** approver id → 'approve' | 'deny'. */
  votes: Record<string, 'approve' | 'deny'>;
  approvalTtlAt: Date;
  /** Canonical JSON of the escalated grant request (replayed on approval). */
  requestJson: string;
  grantId: string | null;
  createdAt: Date;
  resolvedAt: Date | null;
  /** What the approver proposed instead (countered escalations only). */
  counterProposal: Record<string, unknown> | null;
}

/** `esc_<region>_<base32>`: regional like every OAP identifier, so the router homes it. */
export function newEscalationId(region: IdRegion): string {
  return newRegionalId('escalation', region);
}

/** Approvals a quorum needs: all of them, a strict majority, or the configured threshold. */
export function approvalsNeeded(quorumType: Escalation['quorumType'], approvers: number, threshold?: number): number {
  if (quorumType === 'all') return approvers;
  if (quorumType === 'majority') return Math.floor(approvers / 2) + 1;
  return threshold ?? approvers;
}

/**
 * The aggregated outcome of the votes so far: approved once enough approvals are in, denied once
 * enough denials make approval impossible, pending otherwise.
 */
export function quorumOutcome(escalation: Pick<Escalation, 'approvers' | 'threshold' | 'votes'>): 'approved' | 'denied' | 'pending' {
  const votes = Object.values(escalation.votes);
  const approvals = votes.filter((v) => v === 'approve').length;
  const denials = votes.filter((v) => v === 'deny').length;
  if (approvals >= escalation.threshold) return 'approved';
  if (escalation.approvers.length - denials < escalation.threshold) return 'denied';
  return 'pending';
}

/** The API view of an escalation. */
export function escalationView(escalation: Escalation): Record<string, unknown> {
  return {
    id: escalation.id,
    object: 'escalation',
    agent_id: escalation.agentId,
    authority_id: escalation.authorityId,
    status: escalation.status,
    quorum_type: escalation.quorumType,
    approvers: escalation.approvers,
    approvals_needed: escalation.threshold,
    votes: escalation.votes,
    approval_ttl_at: escalation.approvalTtlAt.toISOString(),
    request: JSON.parse(escalation.requestJson) as unknown,
    grant_id: escalation.grantId,
    created_at: escalation.createdAt.toISOString(),
    resolved_at: escalation.resolvedAt?.toISOString() ?? null,
    counter_proposal: escalation.counterProposal,
  } satisfies EscalationResponse;
}
