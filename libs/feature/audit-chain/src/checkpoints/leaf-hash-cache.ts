import type { AuditEntriesRepository } from '../chain/audit-entries.repository';
import { entryLeafHash } from '../verification/merkle-frontier';

const CHUNK = 50_000;

/** The one query the cache needs from the entries repository. */
export type LeafHashSource = Pick<AuditEntriesRepository, 'hashes'>;

/**
 * In-process copy of the chain's Merkle leaf hashes (32 bytes per entry), extended on demand
 * from Postgres. Entries are append-only, so a prefix once read never changes in a healthy chain;
 * proofs and checkpoints are built from the log as this process first read it (a later rewrite of
 * stored rows is what the verifier, which always rereads, is for).
 */
export class LeafHashCache {
  private readonly leaves: Uint8Array[] = [];
  /**
   * The extension in progress. Callers queue behind it: a checkpoint, a proof and a witness
   * submission may ask at once, and two reads of the same rows appended in parallel would
   * interleave and look like a gap in the chain.
   */
  private extending: Promise<void> = Promise.resolve();

  constructor(private readonly entries: LeafHashSource) {}

  /** Leaf hashes of entries [0, size). @throws if the stored chain has a gap below `size`. */
  async prefix(size: number): Promise<readonly Uint8Array[]> {
    if (this.leaves.length < size) {
      const extension = this.extending.then(() => this.extendTo(size));
      this.extending = extension.catch(() => undefined);
      await extension;
    }
    // A copy: the cache may grow while the caller computes, and proofs take the array length as tree size.
    return this.leaves.slice(0, size);
  }

  private async extendTo(size: number): Promise<void> {
    while (this.leaves.length < size) {
      const from = this.leaves.length;
      const rows = await this.entries.hashes(from, Math.min(size, from + CHUNK));
      if (rows.length === 0) throw new Error(`audit chain has no entry at index ${from}`);
      for (const row of rows) {
        if (row.index !== this.leaves.length) throw new Error(`audit chain has no entry at index ${this.leaves.length}`);
        this.leaves.push(entryLeafHash(row.hash));
      }
    }
  }
}
