import type { SigningKeyStore } from '@svc/key-store';
import { ed25519PublicKeyRaw, merkleRootFromHashes, signNote, verifierKeyString } from '@svc/merkle';
import type { OutboxWriter } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import type { AuditEntriesRepository } from '../chain/audit-entries.repository';
import { checkpointBody } from './checkpoint-note';
import type { CheckpointsRepository, StoredCheckpoint } from './checkpoints.repository';
import type { LeafHashCache } from './leaf-hash-cache';

/** Settings of {@link CreateCheckpoint}. */
export interface CreateCheckpointOptions {
  /** C2SP origin, also the signing key's name in the note. */
  readonly origin: string;
  readonly clock: { now(): Date };
  /** Name of the configured witness; undefined when none is configured. */
  readonly witnessName?: string;
}

/**
 * Signs the chain head as a C2SP checkpoint: RFC 9162 Merkle root over the entry hashes (leaf =
 * the entry hash's 32 bytes), the note signed with the region's active Ed25519 key, stored with
 * its key id and verifier key, and announced (`audit.checkpoint_signed`) through the outbox in
 * the same transaction. Marked `pending` for the witness when one is configured.
 */
export class CreateCheckpoint {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entries: AuditEntriesRepository,
    private readonly checkpoints: CheckpointsRepository,
    private readonly leaves: LeafHashCache,
    private readonly keys: SigningKeyStore,
    private readonly outbox: OutboxWriter | undefined,
    private readonly options: CreateCheckpointOptions,
  ) {}

  /**
   * Makes a checkpoint; with `dueAfterMs`, only if the latest one is at least that old (checked
   * under the checkpoint lock, so concurrent processes make one between them) and otherwise
   * returns undefined.
   * @throws when the chain is empty (it always holds its genesis entry once the service ran).
   */
  async execute(dueAfterMs?: number): Promise<StoredCheckpoint | undefined> {
    const head = await this.entries.head();
    if (!head) throw new Error('cannot checkpoint an empty audit chain');
    const size = head.index + 1;
    const root = merkleRootFromHashes(await this.leaves.prefix(size));
    const key = await this.keys.activeKey();
    const now = this.options.clock.now();
    const body = checkpointBody(this.options.origin, size, root, head.hash, now);
    const signedNote = signNote(body, { name: this.options.origin, privateKey: key.privateKey });
    const verifierKey = verifierKeyString(this.options.origin, ed25519PublicKeyRaw(key.privateKey));
    return this.dataSource.transaction(async (manager) => {
      await this.checkpoints.lock(manager);
      const latest = dueAfterMs === undefined ? undefined : await this.checkpoints.latest(manager);
      if (latest && now.getTime() - latest.createdAt.getTime() < (dueAfterMs ?? 0)) return undefined;
      const stored = await this.checkpoints.insert(manager, {
        origin: this.options.origin,
        treeSize: size,
        rootHash: Buffer.from(root).toString('hex'),
        headHash: head.hash,
        signedNote,
        kid: key.kid,
        verifierKey,
        createdAt: now,
        witnessStatus: this.options.witnessName ? 'pending' : 'not_configured',
        witnessName: this.options.witnessName ?? null,
      });
      await this.outbox?.add(
        manager,
        'audit.checkpoint_signed',
        {
          sequence: BigInt(stored.sequence),
          origin: stored.origin,
          treeSize: BigInt(size),
          rootHash: stored.rootHash,
          headHash: stored.headHash,
        },
        { occurredAt: now },
      );
      return stored;
    });
  }
}
