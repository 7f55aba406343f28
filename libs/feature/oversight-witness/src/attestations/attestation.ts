/** Decisions a policy engine may attest (spec, Attestation request). */
export const ATTESTATION_DECISIONS = ['allow', 'deny', 'escalate'] as const;
export type AttestationDecision = (typeof ATTESTATION_DECISIONS)[number];

/** GDPR Art. 6 lawful bases (spec, Attestation request `legal_basis`). */
export const LEGAL_BASES = ['consent', 'contract', 'legal_obligation', 'vital_interests', 'public_task', 'legitimate_interests'] as const;
export type LegalBasis = (typeof LEGAL_BASES)[number];

/**
 * Lifecycle of a witnessed attestation: `witnessed` (allow/deny, final at once),
 * `pending_approval` (escalated to a human), then `approved`, `denied` or `countered`.
 */
export type AttestationStatus = 'witnessed' | 'pending_approval' | 'approved' | 'denied' | 'countered';

/** Outcome of a human approval of an escalated attestation. */
export type EscalationOutcome = 'approved' | 'denied' | 'countered';

/** Longest attestation_id (the idempotency key), characters. */
export const MAX_ATTESTATION_ID_LENGTH = 64;
/** Longest agent_class, characters. */
export const MAX_AGENT_CLASS_LENGTH = 128;
/** Longest action_class, characters. */
export const MAX_ACTION_CLASS_LENGTH = 64;
/** Largest `context`, bytes of its RFC 8785 canonical JSON (4 KiB). */
export const MAX_CONTEXT_BYTES = 4096;
/** How far in the future `decided_at` may lie, seconds (spec, Limits: clock skew ±60 s). */
export const DECIDED_AT_SKEW_SECONDS = 60;
/** Lifetime of the human approval opened by an escalation, seconds (decision-gateway's approval default, 24 h). */
export const APPROVAL_TTL_SECONDS = 86_400;

/** A validated attestation request, normalised (alias resolved, defaults applied). */
export interface AttestationCommand {
  attestationKey: string;
  applicationId: string;
  agentClass: string;
  actionClass: string;
  decision: AttestationDecision;
  decidedAt: string;
  sequenceNumber: number;
  legalBasis: LegalBasis;
  evidenceDigest: string;
  context: Record<string, unknown> | null;
  requiresHumanApproval: boolean;
}

/** True when the attestation must wait for a human (spec: `requires_human_approval` or `decision: escalate`). */
export function needsHuman(command: Pick<AttestationCommand, 'decision' | 'requiresHumanApproval'>): boolean {
  return command.decision === 'escalate' || command.requiresHumanApproval;
}

/**
 * The canonical form hashed for idempotency and for the receipt's `attestation_digest`: the
 * request's own field names, the legacy alias folded into `application_id`, defaults explicit.
 */
export function canonicalAttestationRequest(command: AttestationCommand): Record<string, unknown> {
  return {
    attestation_id: command.attestationKey,
    application_id: command.applicationId,
    agent_class: command.agentClass,
    action_class: command.actionClass,
    decision: command.decision,
    decided_at: command.decidedAt,
    sequence_number: command.sequenceNumber,
    legal_basis: command.legalBasis,
    evidence_digest: command.evidenceDigest,
    context: command.context,
    requires_human_approval: command.requiresHumanApproval,
  };
}
