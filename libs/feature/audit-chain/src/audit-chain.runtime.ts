import type { SigningKeyStore } from '@svc/key-store';
import type { OutboxWriter } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import type { AuditChainConfig } from './audit-chain.config';
import { AuditAppender } from './chain/audit-appender';
import { AuditEntriesRepository } from './chain/audit-entries.repository';
import { CheckpointScheduler } from './checkpoints/checkpoint-scheduler';
import { CheckpointsRepository } from './checkpoints/checkpoints.repository';
import { CreateCheckpoint } from './checkpoints/create-checkpoint.use-case';
import { LeafHashCache } from './checkpoints/leaf-hash-cache';
import { SubmitToWitness } from './checkpoints/submit-to-witness.use-case';
import { TlogWitnessClient, parseWitnessKey, type WitnessIdentity } from './checkpoints/tlog-witness';
import { WitnessHealth } from './checkpoints/witness-health';
import { VerifyChain } from './verification/verify-chain.use-case';

/** What the audit chain of one region is made of; built once per process (or by a test/bench). */
export interface AuditChainParts {
  readonly dataSource: DataSource;
  readonly keys: SigningKeyStore;
  readonly config: AuditChainConfig;
  readonly region: string;
  readonly origin: string;
  readonly clock: { now(): Date };
  readonly outbox?: OutboxWriter;
  readonly onAppended?: (count: number) => void;
  readonly onError: (error: unknown) => void;
}

/**
 * The region's audit chain: appender (group commit), repositories, checkpointing with the
 * witness, verification. Plain objects (no Nest) so the CLI, the benchmark and tests build the
 * very same pieces the service runs.
 */
export class AuditChain {
  readonly region: string;
  readonly origin: string;
  readonly config: AuditChainConfig;
  readonly entries: AuditEntriesRepository;
  readonly checkpoints: CheckpointsRepository;
  readonly leaves: LeafHashCache;
  readonly appender: AuditAppender;
  readonly createCheckpoint: CreateCheckpoint;
  readonly witness?: WitnessIdentity;
  readonly witnessHealth = new WitnessHealth();
  readonly submitToWitness?: SubmitToWitness;
  readonly scheduler: CheckpointScheduler;
  readonly verifyChain: VerifyChain;

  constructor(parts: AuditChainParts) {
    const { dataSource, keys, config, clock } = parts;
    this.region = parts.region;
    this.origin = parts.origin;
    this.config = config;
    this.entries = new AuditEntriesRepository(dataSource);
    this.checkpoints = new CheckpointsRepository(dataSource);
    this.leaves = new LeafHashCache(this.entries);
    this.appender = new AuditAppender(dataSource, {
      region: parts.region,
      origin: parts.origin,
      clock,
      maxBatch: config.AUDIT_APPEND_MAX_BATCH,
      windowMs: config.AUDIT_APPEND_WINDOW_MS,
      onCommitted: parts.onAppended,
    });
    this.witness = config.AUDIT_WITNESS_KEY ? parseWitnessKey(config.AUDIT_WITNESS_KEY) : undefined;
    this.createCheckpoint = new CreateCheckpoint(dataSource, this.entries, this.checkpoints, this.leaves, keys, parts.outbox, {
      origin: parts.origin,
      clock,
      witnessName: this.witness?.name,
    });
    if (this.witness && config.AUDIT_WITNESS_URL) {
      this.submitToWitness = new SubmitToWitness(
        dataSource,
        this.checkpoints,
        this.leaves,
        new TlogWitnessClient(config.AUDIT_WITNESS_URL, config.AUDIT_WITNESS_TIMEOUT_MS),
        this.witnessHealth,
        parts.outbox,
        { witness: this.witness, clock, maxBackoffMs: config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000 },
      );
    }
    this.scheduler = new CheckpointScheduler(this.checkpoints, this.createCheckpoint, this.submitToWitness, {
      intervalMs: config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000,
      clock,
      onError: parts.onError,
    });
    this.verifyChain = new VerifyChain(this.entries, this.checkpoints, (kid) => keys.publicKey(kid));
  }

  /** Hash of the chain's genesis entry (index 0), or null before the chain has begun. */
  async genesisHash(): Promise<string | null> {
    return (await this.entries.genesis())?.hash ?? null;
  }
}
