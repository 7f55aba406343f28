import { findFirstChainBreak, type ChainEntry } from '@svc/merkle';
import { MerkleFrontier, entryLeafHash } from './merkle-frontier';

/**
 * Why verification stopped, with the first index that cannot be trusted:
 * - `missing_entry`: no entry at that index (deleted), though later ones exist;
 * - `link_mismatch`: its stored previous hash is not its predecessor's hash (moved or reordered);
 * - `hash_mismatch`: its hash does not recompute from its link and canonical text (altered);
 * - `inserted_entry`: an entry that links to its predecessor was slipped in at that index (its
 *   successor still links to the entry before it);
 * - `malformed_entry`: its previous hash or canonical text cannot be hashed;
 * - `checkpoint_root_mismatch`: the entries under a signed checkpoint no longer give its Merkle
 *   root (a rewrite with recomputed hashes); the index is the first one no verified checkpoint
 *   vouches for;
 * - `truncated`: a signed checkpoint covers more entries than are stored; the index is the first
 *   missing one.
 */
export type ChainFailureReason =
  'missing_entry' | 'link_mismatch' | 'hash_mismatch' | 'inserted_entry' | 'malformed_entry' | 'checkpoint_root_mismatch' | 'truncated';

/** The first failure found. */
export interface ChainFailure {
  readonly index: number;
  readonly reason: ChainFailureReason;
  /** The checkpoint involved, for the checkpoint reasons. */
  readonly checkpointSequence?: number;
}

/** What a verifier needs of a signed checkpoint (its signature already checked by the caller). */
export interface CheckpointFact {
  readonly sequence: number;
  readonly treeSize: number;
  /** Merkle root, lower-case hex. */
  readonly rootHash: string;
}

/** Where verification starts: genesis (index 0, zero hash) or a trusted checkpoint's head. */
export interface VerificationStart {
  readonly index: number;
  readonly previousHash: string;
  /** Frontier over entries [0, index), already checked against the starting checkpoint. */
  readonly frontier?: MerkleFrontier;
}

/**
 * Streaming chain verifier: feed it stored entries in index order, in chunks of any size; it
 * recomputes every link and hash (via @svc/merkle `findFirstChainBreak`) and every signed
 * checkpoint's Merkle root, and stops at the first failure. Pure, no I/O: the API and the CLI
 * share it.
 */
export class ChainVerifier {
  private expectedIndex: number;
  private previousHash: string;
  /** Hash of the entry before the last verified one (to recognise an inserted entry). */
  private beforePreviousHash: string | undefined;
  /** The last chunk's final entry still has its checkpoints to check. */
  private deferredCheck = false;
  private readonly frontier: MerkleFrontier;
  private readonly pending: CheckpointFact[];
  private lastVouchedSize: number;
  private failure?: ChainFailure;

  constructor(start: VerificationStart, checkpoints: readonly CheckpointFact[]) {
    this.expectedIndex = start.index;
    this.previousHash = start.previousHash;
    this.frontier = start.frontier ?? new MerkleFrontier();
    this.lastVouchedSize = start.index;
    this.pending = checkpoints.filter((c) => c.treeSize > start.index).sort((a, b) => a.treeSize - b.treeSize);
  }

  /** Entries verified so far (the index the next entry must have). */
  get verifiedSize(): number {
    return this.expectedIndex;
  }

  /** Hash of the last verified entry (the zero hash before the first). */
  get headHash(): string {
    return this.previousHash;
  }

  /** Signed checkpoints whose roots were recomputed and matched. */
  get checkpointsVerified(): number {
    return this.verifiedCheckpoints;
  }

  private verifiedCheckpoints = 0;

  /** Checks the next chunk; returns the first failure (also on later calls), or undefined. */
  feed(entries: readonly ChainEntry[]): ChainFailure | undefined {
    if (this.failure || entries.length === 0) return this.failure;
    const first = entries[0];
    if (first && first.index !== this.expectedIndex) {
      // The chunk starts past the expected index: that entry was deleted. (An index below it cannot
      // occur: indexes are a primary key read in order.)
      const deferred = this.runDeferredCheck();
      if (deferred) return deferred;
      return this.fail(this.expectedIndex, 'missing_entry');
    }
    const broken = findFirstChainBreak(entries, this.previousHash);
    let goodCount = entries.length;
    let breakFailure: ChainFailure | undefined;
    if (broken) {
      goodCount = entries.findIndex((e) => e.index === broken.index);
      if (broken.reason === 'index_gap') {
        const before = entries[goodCount - 1];
        breakFailure = { index: before ? before.index + 1 : this.expectedIndex, reason: 'missing_entry' };
      } else if (broken.reason === 'link_mismatch' && this.linksPastItsPredecessor(entries, goodCount)) {
        // Its predecessor was inserted: report that one, and do not count it as verified (when it
        // ended the previous chunk, its deferred checkpoint check is dropped: it would only blame
        // the segment, not the index).
        if (goodCount === 0) this.deferredCheck = false;
        goodCount = Math.max(goodCount - 1, 0);
        breakFailure = { index: broken.index - 1, reason: 'inserted_entry' };
      } else {
        breakFailure = { index: broken.index, reason: broken.reason };
      }
    }
    const deferred = this.runDeferredCheck();
    if (deferred) return deferred;
    for (let i = 0; i < goodCount; i += 1) {
      const entry = entries[i];
      if (!entry) break;
      this.frontier.push(entryLeafHash(entry.hash));
      this.beforePreviousHash = this.previousHash;
      this.previousHash = entry.hash;
      this.expectedIndex = entry.index + 1;
      if (i === entries.length - 1) {
        // The chunk's last entry: its checkpoints are checked with the next chunk (or at finish),
        // once it is known that the next entry does not reveal it as inserted.
        this.deferredCheck = true;
        continue;
      }
      const failure = this.checkCheckpointsAt(this.frontier.size);
      if (failure) return this.fail(failure.index, failure.reason, failure.checkpointSequence);
    }
    if (breakFailure) return this.fail(breakFailure.index, breakFailure.reason);
    return undefined;
  }

  /** Call after the last chunk: a checkpoint larger than the chain means entries were cut off. */
  finish(): ChainFailure | undefined {
    if (this.failure) return this.failure;
    const deferred = this.runDeferredCheck();
    if (deferred) return deferred;
    const beyond = this.pending[0];
    if (beyond) return this.fail(this.expectedIndex, 'truncated', beyond.sequence);
    return undefined;
  }

  /**
   * Whether the entry at `position` (whose link does not match its predecessor) links to the entry
   * two places before it: the one in between was inserted. Needs a predecessor in the chain.
   */
  private linksPastItsPredecessor(entries: readonly ChainEntry[], position: number): boolean {
    const entry = entries[position];
    if (!entry || entry.index === 0) return false;
    let twoBefore: string | undefined;
    if (position >= 2) twoBefore = entries[position - 2]?.hash;
    else if (position === 1) twoBefore = this.previousHash;
    else twoBefore = this.beforePreviousHash;
    return twoBefore !== undefined && entry.previousHash === twoBefore;
  }

  /** Checks the checkpoints ending at the previous chunk's last entry, if not done yet. */
  private runDeferredCheck(): ChainFailure | undefined {
    if (!this.deferredCheck) return undefined;
    this.deferredCheck = false;
    const failure = this.checkCheckpointsAt(this.frontier.size);
    return failure ? this.fail(failure.index, failure.reason, failure.checkpointSequence) : undefined;
  }

  private checkCheckpointsAt(size: number): ChainFailure | undefined {
    while (this.pending[0] && this.pending[0].treeSize === size) {
      const checkpoint = this.pending.shift();
      if (!checkpoint) break;
      if (Buffer.from(this.frontier.root()).toString('hex') !== checkpoint.rootHash) {
        return { index: this.lastVouchedSize, reason: 'checkpoint_root_mismatch', checkpointSequence: checkpoint.sequence };
      }
      this.verifiedCheckpoints += 1;
      this.lastVouchedSize = size;
    }
    return undefined;
  }

  private fail(index: number, reason: ChainFailureReason, checkpointSequence?: number): ChainFailure {
    this.failure = checkpointSequence === undefined ? { index, reason } : { index, reason, checkpointSequence };
    return this.failure;
  }
}
