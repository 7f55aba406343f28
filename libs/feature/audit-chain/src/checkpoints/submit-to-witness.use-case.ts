import { consistencyProofFromHashes, verifyCosignature } from '@svc/merkle';
import type { OutboxWriter } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import type { CheckpointsRepository, StoredCheckpoint } from './checkpoints.repository';
import type { LeafHashCache } from './leaf-hash-cache';
import {
  MAX_PROOF_LINES,
  addCheckpointRequestBody,
  cosignatureLinesFor,
  parseSizeResponse,
  type TlogWitnessClient,
  type WitnessIdentity,
} from './tlog-witness';
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

/** What one submission round did (the last checkpoint it handled). */
export type SubmitOutcome =
  | { readonly status: 'idle' }
  | { readonly status: 'cosigned'; readonly sequence: number; readonly timestamp: number; readonly submitted: number }
  | {
      readonly status: 'failed';
      readonly sequence: number;
      readonly error: string;
      readonly nextAttemptAt: Date;
      readonly submitted: number;
    };

/** Most checkpoints one round submits (a long outage drains over a few rounds). */
export const MAX_SUBMISSIONS_PER_ROUND = 50;

class WitnessRefusal extends Error {}

/** The witness has cosigned past this checkpoint and a newer one is pending: skip it. */
class Superseded extends Error {}

/**
 * Sends pending checkpoints to the configured witness (C2SP tlog-witness `add-checkpoint`), oldest
 * first: while the witness is down they queue, and once it answers again they are submitted in
 * order, each with a consistency proof from the size the witness last cosigned. The returned
 * cosignature/v1 is verified against the configured witness key before it is stored, with the
 * witness's new size. Answers:
 * - 409 `text/x.tlog.size`: resynchronise the witness size from the body and retry (once per
 *   checkpoint); a checkpoint the witness has already gone past is marked superseded when a newer
 *   one is pending, else refused (the witness saw a longer log than this database: a rollback);
 * - 400, 403, 404, 422 and any other status, network errors and timeouts: the attempt fails, is
 *   recorded on the checkpoint (`witness_last_error`) and in the witness health (`/readyz`
 *   `audit_witness`, `/metrics`), and the same checkpoint is retried with exponential backoff;
 *   the ones behind it wait (order is kept).
 * Appends never wait for any of this.
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

  /** Submits the due pending checkpoints in order, until one fails or none is left. */
  async execute(): Promise<SubmitOutcome> {
    let outcome: SubmitOutcome = { status: 'idle' };
    let submitted = 0;
    for (let round = 0; round < MAX_SUBMISSIONS_PER_ROUND; round += 1) {
      const now = this.options.clock.now();
      const checkpoint = await this.checkpoints.duePending(now);
      if (!checkpoint) break;
      try {
        const timestamp = await this.submit(checkpoint);
        this.health.recordSuccess(now);
        submitted += 1;
        outcome = { status: 'cosigned', sequence: checkpoint.sequence, timestamp, submitted };
      } catch (error) {
        if (error instanceof Superseded) {
          await this.checkpoints.markSuperseded(checkpoint.sequence);
          continue;
        }
        const message = error instanceof Error ? error.message : String(error);
        const delay = Math.min(
          this.options.maxBackoffMs ?? 900_000,
          (this.options.baseBackoffMs ?? 5_000) * 2 ** Math.min(checkpoint.witnessAttempts, 20),
        );
        const nextAttemptAt = new Date(now.getTime() + delay);
        await this.checkpoints.markAttemptFailed(checkpoint.sequence, message, nextAttemptAt);
        this.health.recordFailure(now, message);
        return { status: 'failed', sequence: checkpoint.sequence, error: message, nextAttemptAt, submitted };
      }
    }
    return outcome;
  }

  private async submit(checkpoint: StoredCheckpoint): Promise<number> {
    const { witness } = this.options;
    let oldSize = await this.checkpoints.witnessCosignedSize(witness.name);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (oldSize > checkpoint.treeSize) {
        if (await this.checkpoints.hasPendingAfter(checkpoint.sequence)) throw new Superseded();
        throw new WitnessRefusal(`witness has cosigned size ${oldSize}, beyond checkpoint size ${checkpoint.treeSize}`);
      }
      const proof =
        oldSize === 0 || oldSize === checkpoint.treeSize
          ? []
          : consistencyProofFromHashes(oldSize, await this.leaves.prefix(checkpoint.treeSize));
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
