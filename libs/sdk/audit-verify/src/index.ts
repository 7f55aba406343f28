export {
  AuditProofError,
  verifyConsistencyProof,
  verifyInclusionProof,
  type AuditCheckpointResponse,
  type AuditProofFailure,
  type ConsistencyProofResponse,
  type InclusionProofResponse,
  type VerifiedConsistency,
  type VerifiedInclusion,
  type VerifyAuditProofOptions,
} from './verify-audit-proof';
