import { auditError } from '../audit.errors';
import type { AuditChain } from '../audit-chain.runtime';
import type { StoredEntry } from '../chain/audit-entry';
import type { StoredCheckpoint } from '../checkpoints/checkpoints.repository';
import { checkpointView, entryView } from '../http/views';
import { buildInclusionProof } from './build-proofs';

/** Most entries one evidence request may prove. */
export const MAX_EVIDENCE_ENTRIES = 1_000;

/**
 * Inclusion proofs of `entryIds` in one signed checkpoint covering them all, for an evidence
 * package: a witness-cosigned checkpoint when one covers them, else the latest covering one; when
 * none covers them yet, one is made now (and submitted to the witness when one is configured).
 * @throws DomainError `audit_entry_not_found` (404) for an unknown id, `audit_entry_invalid` (400)
 *   for too many ids.
 */
export async function evidenceProofs(chain: AuditChain, entryIds: readonly string[]): Promise<Record<string, unknown>> {
  if (entryIds.length > MAX_EVIDENCE_ENTRIES)
    throw auditError('audit_entry_invalid', `At most ${MAX_EVIDENCE_ENTRIES} entries per request`, { field: 'entry_ids' });
  const entries: StoredEntry[] = [];
  for (const id of entryIds) {
    const entry = await chain.entries.byId(id);
    if (!entry) throw auditError('audit_entry_not_found', 'Audit record not found', { id });
    entries.push(entry);
  }
  const needed = entries.reduce((max, entry) => Math.max(max, entry.index + 1), 1);
  const checkpoint = (await coveringCheckpoint(chain, needed)) ?? (await freshCheckpoint(chain, needed));
  const proofs = [];
  for (const entry of entries) {
    const proof = await buildInclusionProof(chain.checkpoints, chain.leaves, entry, checkpoint.sequence);
    proofs.push({ entry: entryView(entry), leaf_index: entry.index, leaf_hash: proof.leafHash, proof: proof.proof });
  }
  return { checkpoint: checkpointView(checkpoint), proofs };
}

async function coveringCheckpoint(chain: AuditChain, minSize: number): Promise<StoredCheckpoint | undefined> {
  const covering = await chain.checkpoints.listCovering(minSize, 50);
  return covering.find((checkpoint) => checkpoint.witnessStatus === 'cosigned') ?? covering[0];
}

async function freshCheckpoint(chain: AuditChain, minSize: number): Promise<StoredCheckpoint> {
  await chain.createCheckpoint.execute();
  if (chain.submitToWitness) await chain.submitToWitness.execute().catch(() => undefined);
  const checkpoint = await coveringCheckpoint(chain, minSize);
  if (!checkpoint) throw auditError('entry_not_in_checkpoint', 'No checkpoint covers these entries yet', { tree_size: minSize });
  return checkpoint;
}
