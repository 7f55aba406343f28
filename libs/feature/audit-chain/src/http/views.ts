import type { StoredEntry } from '../chain/audit-entry';
import type { StoredCheckpoint } from '../checkpoints/checkpoints.repository';
import type { ChainVerificationResult } from '../verification/verify-chain.use-case';
import type { AuditCheckpointResponse, AuditRecordResponse, AuditVerificationResponse } from './audit.responses';

const hexToBase64 = (hex: string): string => Buffer.from(hex, 'hex').toString('base64');

/**
 * An entry as served: `canonical` is the exact text its hash covers, so anyone can recompute
 * `hash = SHA-256(bytes(previous_hash) || UTF-8(canonical))`.
 */
export function entryView(entry: StoredEntry): AuditRecordResponse {
  return {
    object: 'audit_record',
    id: entry.id,
    index: entry.index,
    type: entry.type,
    application_id: entry.applicationId,
    created_at: entry.createdAt.toISOString(),
    previous_hash: entry.previousHash,
    hash: entry.hash,
    canonical: entry.canonical,
  } satisfies AuditRecordResponse;
}

/** A checkpoint as served (public: sizes, hashes and signatures only). Merkle values are base64, as in the note. */
export function checkpointView(checkpoint: StoredCheckpoint): AuditCheckpointResponse {
  return {
    object: 'audit_checkpoint',
    sequence: checkpoint.sequence,
    origin: checkpoint.origin,
    tree_size: checkpoint.treeSize,
    root_hash: hexToBase64(checkpoint.rootHash),
    head_hash: checkpoint.headHash,
    created_at: checkpoint.createdAt.toISOString(),
    kid: checkpoint.kid,
    verifier_key: checkpoint.verifierKey,
    signed_note: checkpoint.signedNote,
    witness: {
      status: checkpoint.witnessStatus,
      name: checkpoint.witnessName,
      cosigned_note: checkpoint.cosignedNote,
      cosignature_timestamp: checkpoint.cosignatureTimestamp,
      attempts: checkpoint.witnessAttempts,
    },
  } satisfies AuditCheckpointResponse;
}

/** A verification result as served. */
export function verificationView(
  region: string,
  origin: string,
  genesisHash: string | null,
  result: ChainVerificationResult,
): Record<string, unknown> {
  return {
    object: 'audit_verification',
    region,
    origin,
    valid: result.valid,
    genesis_hash: genesisHash,
    verified_from_index: result.verifiedFromIndex,
    verified_size: result.verifiedSize,
    head_hash: result.headHash,
    checkpoints_verified: result.checkpointsVerified,
    first_broken_index: result.firstBrokenIndex,
    reason: result.reason,
    checkpoint_sequence: result.checkpointSequence,
    invalid_checkpoints: result.invalidCheckpoints,
  } satisfies AuditVerificationResponse;
}
