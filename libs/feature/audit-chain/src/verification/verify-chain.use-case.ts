import type { KeyObject } from 'node:crypto';
import { GENESIS_PREVIOUS_HASH, ed25519NoteVerifier, openCheckpoint } from '@svc/merkle';
import { auditError } from '../audit.errors';
import type { AuditEntriesRepository } from '../chain/audit-entries.repository';
import type { CheckpointsRepository, StoredCheckpoint } from '../checkpoints/checkpoints.repository';
import { ChainVerifier, type ChainFailureReason, type CheckpointFact } from './chain-verifier';
import { MerkleFrontier, entryLeafHash } from './merkle-frontier';

/** Entries read per query while verifying. */
export const VERIFY_CHUNK = 5_000;

/** Resolves a region key id to its public key (SigningKeyStore.publicKey). */
export type PublicKeyResolver = (kid: string) => Promise<KeyObject | undefined>;

/** Outcome of a verification run (no personal data: indexes, hashes and counts only). */
export interface ChainVerificationResult {
  readonly valid: boolean;
  /** Entries checked, counting from index 0 (those before a starting checkpoint are vouched by it). */
  readonly verifiedSize: number;
  /** Index verification started at (0 from genesis, else the starting checkpoint's size). */
  readonly verifiedFromIndex: number;
  /** Hash of the last verified entry. */
  readonly headHash: string;
  readonly checkpointsVerified: number;
  /** First index that cannot be trusted, or null. */
  readonly firstBrokenIndex: number | null;
  readonly reason: ChainFailureReason | null;
  readonly checkpointSequence: number | null;
  /** Checkpoints whose signed note does not verify with the region key or does not match its row. */
  readonly invalidCheckpoints: readonly number[];
}

/** A checkpoint's signed facts, read from its verified note (never from the row's columns alone). */
interface VerifiedCheckpoint extends CheckpointFact {
  readonly headHash: string;
}

/**
 * Recomputes the chain from genesis, or from a stored checkpoint whose signature verifies, and
 * reports the first broken index. Streams entries in chunks (memory O(chunk + log n)); checks
 * every signed checkpoint's root on the way and the latest one's size at the end. Used by
 * `GET /api/v1/audit/verify` and `svc-audit verify`.
 */
export class VerifyChain {
  constructor(
    private readonly entries: AuditEntriesRepository,
    private readonly checkpoints: CheckpointsRepository,
    private readonly publicKey: PublicKeyResolver,
  ) {}

  /**
   * @param fromCheckpoint sequence of the checkpoint to start from; genesis when undefined.
   * @throws DomainError `checkpoint_not_found` (404), `checkpoint_invalid` (422) for a starting
   *   checkpoint whose signature does not verify.
   */
  async execute(fromCheckpoint?: number): Promise<ChainVerificationResult> {
    const stored = await this.checkpoints.all();
    const facts: VerifiedCheckpoint[] = [];
    const invalid: number[] = [];
    for (const checkpoint of stored) {
      const fact = await this.verifiedFacts(checkpoint);
      if (fact) facts.push(fact);
      else invalid.push(checkpoint.sequence);
    }
    let verifier: ChainVerifier;
    if (fromCheckpoint === undefined) {
      verifier = new ChainVerifier({ index: 0, previousHash: GENESIS_PREVIOUS_HASH }, facts);
    } else {
      const start = stored.find((c) => c.sequence === fromCheckpoint);
      if (!start) throw auditError('checkpoint_not_found', 'Checkpoint not found', { checkpoint: fromCheckpoint });
      const fact = facts.find((f) => f.sequence === fromCheckpoint);
      if (!fact)
        throw auditError('checkpoint_invalid', 'Checkpoint signature does not verify with the region key', { checkpoint: fromCheckpoint });
      const prefix = await this.prefixFrontier(fact);
      if ('failure' in prefix) return this.result(fact.treeSize, prefix.verifier, invalid, prefix.failure);
      verifier = new ChainVerifier({ index: fact.treeSize, previousHash: fact.headHash, frontier: prefix.frontier }, facts);
    }
    const from = verifier.verifiedSize;
    let after = from - 1;
    for (;;) {
      const chunk = await this.entries.range(after, VERIFY_CHUNK);
      if (chunk.length === 0) break;
      const failure = verifier.feed(chunk);
      if (failure) return this.result(from, verifier, invalid, failure);
      after = chunk[chunk.length - 1]?.index ?? after;
    }
    return this.result(from, verifier, invalid, verifier.finish());
  }

  /** Frontier over entries [0, size) of a starting checkpoint, checked against its signed root. */
  private async prefixFrontier(
    fact: VerifiedCheckpoint,
  ): Promise<
    | { frontier: MerkleFrontier }
    | { failure: { index: number; reason: ChainFailureReason; checkpointSequence?: number }; verifier: ChainVerifier }
  > {
    const frontier = new MerkleFrontier();
    const empty = new ChainVerifier({ index: 0, previousHash: GENESIS_PREVIOUS_HASH }, []);
    while (frontier.size < fact.treeSize) {
      const rows = await this.entries.hashes(frontier.size, Math.min(fact.treeSize, frontier.size + VERIFY_CHUNK * 10));
      if (rows.length === 0)
        return { failure: { index: frontier.size, reason: 'truncated', checkpointSequence: fact.sequence }, verifier: empty };
      for (const row of rows) {
        if (row.index !== frontier.size) return { failure: { index: frontier.size, reason: 'missing_entry' }, verifier: empty };
        frontier.push(entryLeafHash(row.hash));
      }
    }
    if (Buffer.from(frontier.root()).toString('hex') !== fact.rootHash) {
      return { failure: { index: 0, reason: 'checkpoint_root_mismatch', checkpointSequence: fact.sequence }, verifier: empty };
    }
    return { frontier };
  }

  private async verifiedFacts(checkpoint: StoredCheckpoint): Promise<VerifiedCheckpoint | undefined> {
    const key = await this.publicKey(checkpoint.kid);
    if (!key) return undefined;
    try {
      const opened = openCheckpoint(checkpoint.signedNote, [ed25519NoteVerifier(checkpoint.origin, key)]);
      const { checkpoint: body } = opened;
      const headLine = body.extensions.find((line) => line.startsWith('head '));
      const rootHash = Buffer.from(body.rootHash).toString('hex');
      if (body.origin !== checkpoint.origin || body.size !== checkpoint.treeSize || rootHash !== checkpoint.rootHash || !headLine)
        return undefined;
      return { sequence: checkpoint.sequence, treeSize: body.size, rootHash, headHash: headLine.slice('head '.length) };
    } catch {
      return undefined;
    }
  }

  private result(
    from: number,
    verifier: ChainVerifier,
    invalidCheckpoints: readonly number[],
    failure: { index: number; reason: ChainFailureReason; checkpointSequence?: number } | undefined,
  ): ChainVerificationResult {
    return {
      valid: failure === undefined && invalidCheckpoints.length === 0,
      verifiedSize: verifier.verifiedSize,
      verifiedFromIndex: from,
      headHash: verifier.headHash,
      checkpointsVerified: verifier.checkpointsVerified,
      firstBrokenIndex: failure?.index ?? null,
      reason: failure?.reason ?? null,
      checkpointSequence: failure?.checkpointSequence ?? null,
      invalidCheckpoints,
    };
  }
}
