import type {
  AttestationEscalationResponse,
  AttestationReadResponse,
  AttestationResponse,
  CounterProposalResponse,
} from './attestation.response';
import type { StoredAttestation } from './attestations.repository';
import type { DeliveredCounter, OpenedEscalation } from './use-cases/submit-attestation.use-case';

/** The spec's `attestation` object plus the sequence flag and lifecycle status. */
export function attestationView(a: StoredAttestation, idempotentReplay: boolean): AttestationResponse {
  return {
    id: a.id,
    object: 'attestation',
    attestation_id: a.attestationKey,
    received_at: a.receivedAt.toISOString(),
    sequence_number: a.sequenceNumber,
    sequence_gap: a.sequenceGap,
    expected_sequence_number: a.expectedSequenceNumber,
    decision: a.decision,
    status: a.status,
    idempotent_replay: idempotentReplay,
  };
}

/** Escalation block: the approval session's URL and token appear only in the first response. */
export function escalationView(a: StoredAttestation, opened: OpenedEscalation | undefined): AttestationEscalationResponse | undefined {
  if (a.approvalTtlAt === null) return undefined;
  return {
    status: a.status,
    approval_ttl_at: a.approvalTtlAt.toISOString(),
    ...(opened ? { decision_url: opened.decisionUrl, session_token: opened.sessionToken } : {}),
  };
}

export function counterView(c: DeliveredCounter): CounterProposalResponse {
  return {
    attestation: c.attestationId,
    attestation_id: c.attestationKey,
    counter_proposal: c.counterProposal,
    countered_at: c.counteredAt?.toISOString() ?? null,
  };
}

/** Full record for `GET /api/v1/oap/attestations/:id` (both receipts, counter-proposal). */
export function attestationDetailView(a: StoredAttestation): AttestationReadResponse {
  return {
    attestation: {
      ...attestationView(a, false),
      application_id: a.applicationId,
      attester_id: a.attesterId,
      agent_class: a.agentClass,
      action_class: a.actionClass,
      decided_at: a.decidedAt.toISOString(),
      legal_basis: a.legalBasis,
      evidence_digest: a.evidenceDigest,
      context: a.context,
      requires_human_approval: a.requiresHumanApproval,
      resolved_at: a.resolvedAt?.toISOString() ?? null,
      counter_proposal: a.counterProposal,
    },
    receipt: a.receipt,
    resolution_receipt: a.resolutionReceipt,
  };
}
