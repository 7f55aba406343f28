import { consistencyProofFromHashes, inclusionProofFromHashes } from '@svc/merkle';
import { auditError } from '../audit.errors';
import type { AuditEntriesRepository } from '../chain/audit-entries.repository';
import type { StoredEntry } from '../chain/audit-entry';
import type { CheckpointsRepository, StoredCheckpoint } from '../checkpoints/checkpoints.repository';
import type { LeafHashCache } from '../checkpoints/leaf-hash-cache';
import { entryLeafHash } from '../verification/merkle-frontier';

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

/** An RFC 9162 inclusion proof of one entry in a signed checkpoint. */
export interface InclusionProof {
  readonly entry: StoredEntry;
  readonly checkpoint: StoredCheckpoint;
  /** Base64 leaf hash: SHA-256(0x00 || 32-byte entry hash). */
  readonly leafHash: string;
  /** Base64 audit path, from the leaf's sibling up. */
  readonly proof: readonly string[];
}

/** An RFC 9162 consistency proof between two signed checkpoints. */
export interface ConsistencyProof {
  readonly from: StoredCheckpoint;
  readonly to: StoredCheckpoint;
  /** Base64 hashes. */
  readonly proof: readonly string[];
}

/**
 * Inclusion proof of `entry` in checkpoint `sequence` (default: the latest checkpoint covering it).
 * @throws DomainError `checkpoint_not_found` (404), `entry_not_in_checkpoint` (422).
 */
export async function buildInclusionProof(
  checkpoints: CheckpointsRepository,
  leaves: LeafHashCache,
  entry: StoredEntry,
  sequence?: number,
): Promise<InclusionProof> {
  let checkpoint: StoredCheckpoint | undefined;
  if (sequence === undefined) {
    const latest = await checkpoints.latest();
    if (!latest || latest.treeSize <= entry.index) {
      throw auditError('entry_not_in_checkpoint', 'No checkpoint covers this entry yet; checkpoints are made every interval', {
        index: entry.index,
      });
    }
    checkpoint = latest;
  } else {
    checkpoint = await checkpoints.bySequence(sequence);
    if (!checkpoint) throw auditError('checkpoint_not_found', 'Checkpoint not found', { checkpoint: sequence });
    if (checkpoint.treeSize <= entry.index) {
      throw auditError('entry_not_in_checkpoint', 'The checkpoint does not cover this entry', {
        index: entry.index,
        tree_size: checkpoint.treeSize,
      });
    }
  }
  const proof = inclusionProofFromHashes(entry.index, await leaves.prefix(checkpoint.treeSize));
  return { entry, checkpoint, leafHash: b64(entryLeafHash(entry.hash)), proof: proof.map(b64) };
}

/**
 * Consistency proof from checkpoint `from` to checkpoint `to`.
 * @throws DomainError `checkpoint_not_found` (404), `checkpoint_order_invalid` (422) when `from`
 *   covers more entries than `to`.
 */
export async function buildConsistencyProof(
  checkpoints: CheckpointsRepository,
  leaves: LeafHashCache,
  fromSequence: number,
  toSequence: number,
): Promise<ConsistencyProof> {
  const from = await checkpoints.bySequence(fromSequence);
  if (!from) throw auditError('checkpoint_not_found', 'Checkpoint not found', { checkpoint: fromSequence });
  const to = await checkpoints.bySequence(toSequence);
  if (!to) throw auditError('checkpoint_not_found', 'Checkpoint not found', { checkpoint: toSequence });
  if (from.treeSize > to.treeSize) {
    throw auditError('checkpoint_order_invalid', '`from` must not cover more entries than `to`', {
      from_tree_size: from.treeSize,
      to_tree_size: to.treeSize,
    });
  }
  const proof = consistencyProofFromHashes(from.treeSize, await leaves.prefix(to.treeSize));
  return { from, to, proof: proof.map(b64) };
}

/** Loads an entry by id, hiding other applications' entries exactly like unknown ids (404). */
export async function ownEntry(entries: AuditEntriesRepository, applicationId: string, id: string): Promise<StoredEntry> {
  const entry = /^audit_rec_[a-z2-7]{24}$/.test(id) ? await entries.byId(id) : undefined;
  if (!entry || entry.applicationId !== applicationId) throw auditError('audit_entry_not_found', 'Audit record not found', { id });
  return entry;
}
