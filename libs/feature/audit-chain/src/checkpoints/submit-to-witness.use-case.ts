import { consistencyProofFromHashes, verifyCosignature } from '@svc/merkle';
import type { OutboxWriter } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import type { CheckpointsRepository, StoredCheckpoint } from './checkpoints.repository';
import type { LeafHashCache } from './leaf-hash-cache';
import { MAX_PROOF_LINES, addCheckpointRequestBody, cosignatureLinesFor, parseSizeResponse, type TlogWitnessClient, type WitnessIdentity } from './tlog-witness';
import type { WitnessHealth } from './witness-health';

/** Settings of {@link SubmitToWitness}. */
export interface SubmitToWitnessOptions {
  readonly witness: WitnessIdentity;
  readonly clock: { now(): Date };
  /** First retry delay, ms; doubled per failure up to {@link maxBackoffMs}. Default 5 000. */
  readonly baseBackoffMs?: number;
  /** Longest retry delay, ms. Default 900 000 (one checkpoint interval). */
  readonly maxBackoffMs?: number;
}

/** What one submission round did. */
export type SubmitOutcome =
  | { readonly status: 'idle' }
  | { readonly status: 'cosigned'; readonly sequence: number; readonly timestamp: number }
  | { readonly status: 'failed'; readonly sequence: number; readonly error: string; readonly nextAttemptAt: Date };

class WitnessRefusal extends Error {}

/**
 * Sends the newest pending checkpoint to the configured witness (C2SP tlog-witness
 * `add-checkpoint`) with a consistency proof from the size the witness last cosigned, verifies the
 * returned cosignature/v1 against the configured witness key before storing it, and records the
 * witness's new size. On a 409 `text/x.tlog.size` it resynchronises its idea of that size once and
 * retries. Any failure is recorded with exponential backoff; appends never wait for any of this.
 */
export class SubmitToWitness {
  constructor(
    private readonly dataSource: DataSource,
    private readonly checkpoints: CheckpointsRepository,
    private readonly leaves: LeafHashCache,
    private readonly client: TlogWitnessClient,
    private readonly health: WitnessHealth,
    private readonly outbox: OutboxWriter | undefined,
    private readonly options: SubmitToWitnessOptions,
  ) {}

  async execute(): Promise<SubmitOutcome> {
    const now = this.options.clock.now();
    const checkpoint = await this.checkpoints.duePending(now);
    if (!checkpoint) return { status: 'idle' };
    try {
      const timestamp = await this.submit(checkpoint);
      this.health.recordSuccess(now);
      return { status: 'cosigned', sequence: checkpoint.sequence, timestamp };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const delay = Math.min(this.options.maxBackoffMs ?? 900_000, (this.options.baseBackoffMs ?? 5_000) * 2 ** Math.min(checkpoint.witnessAttempts, 20));
      const nextAttemptAt = new Date(now.getTime() + delay);
      await this.checkpoints.markAttemptFailed(checkpoint.sequence, message, nextAttemptAt);
      this.health.recordFailure(now, message);
      return { status: 'failed', sequence: checkpoint.sequence, error: message, nextAttemptAt };
    }
  }

  private async submit(checkpoint: StoredCheckpoint): Promise<number> {
    const { witness } = this.options;
    let oldSize = await this.checkpoints.witnessCosignedSize(witness.name);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (oldSize > checkpoint.treeSize) {
        throw new WitnessRefusal(`witness has cosigned size ${oldSize}, beyond checkpoint size ${checkpoint.treeSize}`);
      }
      const proof = oldSize === 0 || oldSize === checkpoint.treeSize ? [] : consistencyProofFromHashes(oldSize, await this.leaves.prefix(checkpoint.treeSize));
      if (proof.length > MAX_PROOF_LINES) throw new WitnessRefusal('consistency proof longer than the protocol allows');
      const response = await this.client.addCheckpoint(addCheckpointRequestBody(oldSize, proof, checkpoint.signedNote));
      if (response.status === 409 && response.contentType.split(';')[0]?.trim() === 'text/x.tlog.size') {
        const known = parseSizeResponse(response.body);
        if (known === undefined) throw new WitnessRefusal('witness answered 409 with a malformed size');
        await this.checkpoints.setWitnessCosignedSize(this.dataSource, witness.name, known, this.options.clock.now());
        oldSize = known;
        continue;
      }
      if (response.status !== 200) {
        throw new WitnessRefusal(`witness answered ${response.status}: ${response.body.slice(0, 200).replace(/\s+/g, ' ').trim()}`);
      }
      return this.store(checkpoint, response.body);
    }
    throw new WitnessRefusal('witness size kept changing (409 twice)');
  }

  private async store(checkpoint: StoredCheckpoint, responseBody: string): Promise<number> {
    const { witness } = this.options;
    const lines = cosignatureLinesFor(responseBody, witness.name);
    if (!lines || lines.length === 0) throw new WitnessRefusal('witness response carries no cosignature line from the configured witness');
    // Trust nothing until it verifies against the configured key (the response is attacker-controlled).
    const cosignedNote = checkpoint.signedNote + lines.join('');
    const verification = verifyCosignature(cosignedNote, { name: witness.name, publicKey: witness.publicKey });
    if (!verification.valid) throw new WitnessRefusal(`witness cosignature rejected: ${verification.reason}`);
    await this.dataSource.transaction(async (manager) => {
      await this.checkpoints.markCosigned(manager, checkpoint.sequence, cosignedNote, verification.timestamp);
      await this.checkpoints.supersedeOlderPending(manager, checkpoint.sequence);
      await this.checkpoints.setWitnessCosignedSize(manager, witness.name, checkpoint.treeSize, this.options.clock.now());
      await this.outbox?.add(
        manager,
        'audit.checkpoint_cosigned',
        { sequence: BigInt(checkpoint.sequence), witnessName: witness.name, cosignatureTimestamp: BigInt(verification.timestamp) },
        { occurredAt: this.options.clock.now() },
      );
    });
    return verification.timestamp;
  }
}
