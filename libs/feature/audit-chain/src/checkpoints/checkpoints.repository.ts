import type { DataSource, EntityManager } from 'typeorm';
import { AUDIT_SCHEMA } from '../schema';

const TABLE = `"${AUDIT_SCHEMA}".checkpoints`;
const COLUMNS = `seq, origin, tree_size, root_hash, head_hash, signed_note, kid, verifier_key, created_at, witness_status, witness_name,
  cosigned_note, cosignature_timestamp, witness_attempts, witness_last_error, witness_next_attempt_at`;

/** Witness progress of a checkpoint. `superseded`: a newer checkpoint was sent instead. */
export type WitnessStatus = 'not_configured' | 'pending' | 'cosigned' | 'superseded';

/** A signed checkpoint as stored. Hashes are lower-case hex. */
export interface StoredCheckpoint {
  readonly sequence: number;
  readonly origin: string;
  readonly treeSize: number;
  readonly rootHash: string;
  readonly headHash: string;
  /** The C2SP signed note (checkpoint body + the region key's signature line). */
  readonly signedNote: string;
  readonly kid: string;
  /** Verifier key of the signature, `<origin>+<key id>+<base64>`. */
  readonly verifierKey: string;
  readonly createdAt: Date;
  readonly witnessStatus: WitnessStatus;
  readonly witnessName: string | null;
  /** The signed note plus the witness's verified cosignature line. */
  readonly cosignedNote: string | null;
  /** POSIX seconds of the cosignature. */
  readonly cosignatureTimestamp: number | null;
  readonly witnessAttempts: number;
  readonly witnessLastError: string | null;
  readonly witnessNextAttemptAt: Date | null;
}

interface CheckpointRow {
  seq: string;
  origin: string;
  tree_size: string;
  root_hash: string;
  head_hash: string;
  signed_note: string;
  kid: string;
  verifier_key: string;
  created_at: Date;
  witness_status: WitnessStatus;
  witness_name: string | null;
  cosigned_note: string | null;
  cosignature_timestamp: string | null;
  witness_attempts: number;
  witness_last_error: string | null;
  witness_next_attempt_at: Date | null;
}

/** A checkpoint about to be stored. */
export type NewCheckpoint = Pick<
  StoredCheckpoint,
  'origin' | 'treeSize' | 'rootHash' | 'headHash' | 'signedNote' | 'kid' | 'verifierKey' | 'createdAt' | 'witnessStatus' | 'witnessName'
>;

/** Queries of `audit.checkpoints` and `audit.witness_state`. */
export class CheckpointsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Serialises checkpoint makers across processes for the rest of the transaction. */
  async lock(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${AUDIT_SCHEMA}:checkpoints`]);
  }

  /** Stores a checkpoint under the next sequence number (call under {@link lock}). */
  async insert(manager: EntityManager, checkpoint: NewCheckpoint): Promise<StoredCheckpoint> {
    const rows: CheckpointRow[] = await manager.query(
      `INSERT INTO ${TABLE} (seq, origin, tree_size, root_hash, head_hash, signed_note, kid, verifier_key, created_at, witness_status, witness_name, witness_next_attempt_at)
       SELECT coalesce(max(seq), 0) + 1, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, CASE WHEN $9 = 'pending' THEN $8::timestamptz END FROM ${TABLE}
       RETURNING ${COLUMNS}`,
      [
        checkpoint.origin,
        checkpoint.treeSize,
        checkpoint.rootHash,
        checkpoint.headHash,
        checkpoint.signedNote,
        checkpoint.kid,
        checkpoint.verifierKey,
        checkpoint.createdAt.toISOString(),
        checkpoint.witnessStatus,
        checkpoint.witnessName,
      ],
    );
    const row = rows[0];
    if (!row) throw new Error('checkpoint insert returned no row');
    return toCheckpoint(row);
  }

  async latest(manager: EntityManager | DataSource = this.dataSource): Promise<StoredCheckpoint | undefined> {
    const rows: CheckpointRow[] = await manager.query(`SELECT ${COLUMNS} FROM ${TABLE} ORDER BY seq DESC LIMIT 1`);
    return rows[0] ? toCheckpoint(rows[0]) : undefined;
  }

  async bySequence(sequence: number): Promise<StoredCheckpoint | undefined> {
    const rows: CheckpointRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${TABLE} WHERE seq = $1`, [sequence]);
    return rows[0] ? toCheckpoint(rows[0]) : undefined;
  }

  /** Newest first; `beforeSequence` continues a page. */
  async list(limit: number, beforeSequence?: number): Promise<StoredCheckpoint[]> {
    const rows: CheckpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE ($1::bigint IS NULL OR seq < $1) ORDER BY seq DESC LIMIT $2`,
      [beforeSequence ?? null, limit],
    );
    return rows.map(toCheckpoint);
  }

  /** Newest first, only checkpoints covering at least `minSize` entries. */
  async listCovering(minSize: number, limit: number): Promise<StoredCheckpoint[]> {
    const rows: CheckpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE tree_size >= $1 ORDER BY seq DESC LIMIT $2`,
      [minSize, limit],
    );
    return rows.map(toCheckpoint);
  }

  /** Checkpoints made in [from, to), oldest first, at most `limit` (an evidence package's period). */
  async between(from: Date, to: Date, limit: number): Promise<StoredCheckpoint[]> {
    const rows: CheckpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE created_at >= $1 AND created_at < $2 ORDER BY seq LIMIT $3`,
      [from, to, limit],
    );
    return rows.map(toCheckpoint);
  }

  /** Every checkpoint, oldest first (for verification; a few per hour). */
  async all(): Promise<StoredCheckpoint[]> {
    const rows: CheckpointRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${TABLE} ORDER BY seq`);
    return rows.map(toCheckpoint);
  }

  /** The oldest checkpoint still waiting for the witness, if its next attempt is due (submissions keep their order). */
  async duePending(now: Date): Promise<StoredCheckpoint | undefined> {
    const rows: CheckpointRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE witness_status = 'pending' ORDER BY seq ASC LIMIT 1`,
    );
    const row = rows[0];
    if (!row) return undefined;
    const checkpoint = toCheckpoint(row);
    return checkpoint.witnessNextAttemptAt && checkpoint.witnessNextAttemptAt > now ? undefined : checkpoint;
  }

  /**
   * Creation times of the newest checkpoint, the newest cosigned one and the first one, in one
   * round trip of primary-key reads; the cosigned lookup walks back only over the checkpoints made
   * since the last cosignature.
   */
  async milestones(): Promise<{ latest?: Date; latestCosigned?: Date; first?: Date }> {
    const rows: Array<{ latest: Date | null; latest_cosigned: Date | null; first: Date | null }> = await this.dataSource.query(
      `SELECT (SELECT created_at FROM ${TABLE} ORDER BY seq DESC LIMIT 1) AS latest,
              (SELECT created_at FROM ${TABLE} WHERE witness_status = 'cosigned' ORDER BY seq DESC LIMIT 1) AS latest_cosigned,
              (SELECT created_at FROM ${TABLE} ORDER BY seq LIMIT 1) AS first`,
    );
    const row = rows[0];
    return { latest: row?.latest ?? undefined, latestCosigned: row?.latest_cosigned ?? undefined, first: row?.first ?? undefined };
  }

  async countPending(): Promise<number> {
    const rows: Array<{ count: string }> = await this.dataSource.query(
      `SELECT count(*) AS count FROM ${TABLE} WHERE witness_status = 'pending'`,
    );
    return Number(rows[0]?.count ?? 0);
  }

  /** Older pending checkpoints are not sent once a newer one is: the witness only needs the latest. */
  /** Whether a checkpoint newer than `sequence` waits for the witness. */
  async hasPendingAfter(sequence: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM ${TABLE} WHERE witness_status = 'pending' AND seq > $1 LIMIT 1`, [
      sequence,
    ]);
    return rows.length > 0;
  }

  /** Marks one pending checkpoint superseded (the witness has cosigned a larger tree). */
  async markSuperseded(sequence: number): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET witness_status = 'superseded', witness_next_attempt_at = NULL WHERE seq = $1 AND witness_status = 'pending'`,
      [sequence],
    );
  }

  async supersedeOlderPending(manager: EntityManager, sequence: number): Promise<void> {
    await manager.query(
      `UPDATE ${TABLE} SET witness_status = 'superseded', witness_next_attempt_at = NULL WHERE witness_status = 'pending' AND seq < $1`,
      [sequence],
    );
  }

  async markCosigned(manager: EntityManager, sequence: number, cosignedNote: string, timestamp: number): Promise<void> {
    await manager.query(
      `UPDATE ${TABLE} SET witness_status = 'cosigned', cosigned_note = $2, cosignature_timestamp = $3, witness_attempts = witness_attempts + 1,
         witness_last_error = NULL, witness_next_attempt_at = NULL WHERE seq = $1`,
      [sequence, cosignedNote, timestamp],
    );
  }

  async markAttemptFailed(sequence: number, error: string, nextAttemptAt: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE ${TABLE} SET witness_attempts = witness_attempts + 1, witness_last_error = $2, witness_next_attempt_at = $3 WHERE seq = $1`,
      [sequence, error.slice(0, 500), nextAttemptAt.toISOString()],
    );
  }

  /** Tree size of the latest checkpoint the witness cosigned for this log (0 if none known). */
  async witnessCosignedSize(name: string): Promise<number> {
    const rows: Array<{ cosigned_size: string }> = await this.dataSource.query(
      `SELECT cosigned_size FROM "${AUDIT_SCHEMA}".witness_state WHERE witness_name = $1`,
      [name],
    );
    return Number(rows[0]?.cosigned_size ?? 0);
  }

  async setWitnessCosignedSize(manager: EntityManager | DataSource, name: string, size: number, now: Date): Promise<void> {
    await manager.query(
      `INSERT INTO "${AUDIT_SCHEMA}".witness_state (witness_name, cosigned_size, updated_at) VALUES ($1, $2, $3)
       ON CONFLICT (witness_name) DO UPDATE SET cosigned_size = EXCLUDED.cosigned_size, updated_at = EXCLUDED.updated_at`,
      [name, size, now.toISOString()],
    );
  }
}

function toCheckpoint(row: CheckpointRow): StoredCheckpoint {
  return {
    sequence: Number(row.seq),
    origin: row.origin,
    treeSize: Number(row.tree_size),
    rootHash: row.root_hash,
    headHash: row.head_hash,
    signedNote: row.signed_note,
    kid: row.kid,
    verifierKey: row.verifier_key,
    createdAt: row.created_at,
    witnessStatus: row.witness_status,
    witnessName: row.witness_name,
    cosignedNote: row.cosigned_note,
    cosignatureTimestamp: row.cosignature_timestamp === null ? null : Number(row.cosignature_timestamp),
    witnessAttempts: row.witness_attempts,
    witnessLastError: row.witness_last_error,
    witnessNextAttemptAt: row.witness_next_attempt_at,
  };
}
