export { OversightWitnessModule } from './oversight-witness.module';
export { oversightWitnessFeature } from './oversight-witness.feature';
export { oversightMigrations } from './migrations';
export { OAP_VERSION, OVERSIGHT_CONFORMANCE, OVERSIGHT_CONFORMANCE_LEVELS, OVERSIGHT_SCHEMA } from './schema';
export { oversightError, type OversightErrorCode } from './oversight.errors';
export {
  ATTESTER_PERMISSIONS,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  DEFAULT_SILENT_AFTER_SECONDS,
  attesterTokenDigest,
  type AttesterPermission,
  type TrustedAttester,
} from './attesters/attester';
export { AttestersRepository } from './attesters/attesters.repository';
export { GrantElevation } from './attesters/use-cases/request-elevation.use-case';
export { AuthenticateAttester } from './attesters/use-cases/authenticate-attester.use-case';
export { AttesterAuthGuard, AttesterRoute, CurrentAttester, type AttesterPrincipal } from './attesters/attester-auth.guard';
export {
  ATTESTATION_DECISIONS,
  LEGAL_BASES,
  type AttestationCommand,
  type AttestationDecision,
  type EscalationOutcome,
  type LegalBasis,
} from './attestations/attestation';
export { SubmitAttestation, type SubmittedAttestation } from './attestations/use-cases/submit-attestation.use-case';
export { ResolveEscalation, type ResolveEscalationCommand } from './attestations/use-cases/resolve-escalation.use-case';
export { ApprovalOutcomes, APPROVAL_OUTCOME_EVENTS } from './attestations/approval-outcomes.consumer';
export { MAX_WITNESS_RECEIPT_BYTES, WITNESS_RECEIPT_TTL_SECONDS, WITNESS_RECEIPT_TYP } from './attestations/witness-receipt';
export { ResolveAgentClassRoute, type ResolvedRoute } from './routing/resolve-agent-class-route.use-case';
export { AGENT_CLASS_ROUTES, type AgentClassRoute } from './routing/agent-class-routes.repository';
export {
  AUTHZEN_EVALUATION_PATH,
  AuthZenAttestationAdapter,
  authZenEvidenceDigest,
  authZenPolicyRef,
  type AuthZenAttestationRequest,
  type AuthZenAttestationResult,
  type AuthZenEvaluationRequest,
} from './authzen/authzen-attestation.adapter';
export { OversightWitnessConfig } from './oversight-witness.config';
export {
  EvaluateGrant,
  evaluationOf,
  type EvaluateGrantCommand,
  type EvaluateGrantOutcome,
  type EngineUnavailableReason,
} from './policy-engines/evaluate-grant.use-case';
export { POLICY_ENGINE_CREDENTIAL_TYPES, DEFAULT_POLICY_ENGINE_TIMEOUT_MS, type PolicyEngine } from './policy-engines/policy-engine';
