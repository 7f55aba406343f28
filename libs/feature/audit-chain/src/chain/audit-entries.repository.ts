import { randomBytes } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { AUDIT_SCHEMA } from '../schema';
import type { StoredEntry } from './audit-entry';

const TABLE = `"${AUDIT_SCHEMA}".entries`;
const COLUMNS = 'idx, id, previous_hash, hash, canonical, entry_type, application_id, agent_id, source_event_id, created_at';

interface EntryRow {
  idx: string;
  id: string;
  previous_hash: string;
  hash: string;
  canonical: string;
  entry_type: string;
  application_id: string | null;
  agent_id: string | null;
  source_event_id: string | null;
  created_at: Date;
}

/** Advisory lock key (through `hashtext`) serialising writers of the chain. */
const CHAIN_LOCK = `${AUDIT_SCHEMA}:chain`;

/** SQLSTATE of a fast append whose predecessor is not stored (see `lockCheckAndInsertMany`). */
const STALE_HEAD = 'AC409';

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;

/** Whether `error` is the refusal of a fast append whose predecessor is not stored. */
export function isStaleHead(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === STALE_HEAD;
}

const FROM_JSON = (source: string): string =>
  `SELECT ${COLUMNS} FROM json_to_recordset(${source}) AS r(idx bigint, id text, previous_hash text, hash text, canonical text,
     entry_type text, application_id text, agent_id text, source_event_id text, created_at timestamptz)`;

/**
 * The rows as one JSON array, written directly (no intermediate object per row: a batch is a
 * thousand rows, and the garbage was a visible share of an append's CPU).
 */
function rowsJson(rows: readonly NewEntryRow[]): string {
  const text = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));
  let out = '[';
  for (let i = 0; i < rows.length; i += 1) {
    const r = rows[i]!;
    out +=
      `${i === 0 ? '' : ','}{"idx":${r.index},"id":${text(r.id)},"previous_hash":${text(r.previousHash)},"hash":${text(r.hash)},` +
      `"canonical":${text(r.canonical)},"entry_type":${text(r.type)},"application_id":${text(r.applicationId)},` +
      `"agent_id":${text(r.agentId)},"source_event_id":${text(r.sourceEventId)},"created_at":${text(r.createdAt.toISOString())}}`;
  }
  return `${out}]`;
}

/** A row to insert: everything computed by the writer. */
export type NewEntryRow = Omit<StoredEntry, never>;

/** The chain head: index and hash of the last entry. */
export interface ChainHead {
  readonly index: number;
  readonly hash: string;
}

/** Queries of `audit.entries`. The table is append-only: nothing here updates or deletes. */
export class AuditEntriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Serialises writers of the chain across processes for the rest of the transaction. Taken
   * before reading the head, so two writers never link to the same predecessor.
   */
  async lockChain(manager: EntityManager): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [CHAIN_LOCK]);
  }

  async head(manager: EntityManager | DataSource = this.dataSource): Promise<ChainHead | undefined> {
    const rows: Array<{ idx: string; hash: string }> = await manager.query(`SELECT idx, hash FROM ${TABLE} ORDER BY idx DESC LIMIT 1`);
    const row = rows[0];
    return row ? { index: Number(row.idx), hash: row.hash } : undefined;
  }

  /** Entries already recording any of `sourceIds`. */
  async bySourceIds(manager: EntityManager, sourceIds: readonly string[]): Promise<StoredEntry[]> {
    if (sourceIds.length === 0) return [];
    const rows: EntryRow[] = await manager.query(`SELECT ${COLUMNS} FROM ${TABLE} WHERE source_event_id = ANY($1::text[])`, [sourceIds]);
    return rows.map(toEntry);
  }

  /**
   * Inserts rows in one statement (one round trip per batch, whatever its size). The rows travel
   * as ONE `json` value (native JSON.stringify, far cheaper than the driver's per-element array
   * escaping); `json_to_recordset` yields each string exactly as sent, so the stored canonical
   * text is byte-for-byte the hashed one.
   */
  async insertMany(manager: EntityManager, rows: readonly NewEntryRow[]): Promise<void> {
    if (rows.length === 0) return;
    await manager.query(`INSERT INTO ${TABLE} (${COLUMNS}) ${FROM_JSON('$1::json')}`, [rowsJson(rows)]);
  }

  /**
   * Takes the chain lock, checks that `after` is stored (its index with its hash) and inserts
   * rows linked after it, in ONE round trip: a three-statement simple query, run by Postgres as
   * one implicit transaction (the lock is held until it commits; each statement sees what
   * committed before the lock was granted). When `after` is not stored, the guard fails the
   * statement with {@link STALE_HEAD} and nothing is written; when another writer appended past
   * it, the primary key does. Simple queries carry no parameters: the index and hash are checked
   * integer and lower-case hex here, and the JSON travels as a dollar-quoted literal whose random
   * tag is checked absent from the text, so nothing in the data can end the literal.
   */
  async lockCheckAndInsertMany(after: ChainHead, rows: readonly NewEntryRow[]): Promise<void> {
    if (rows.length === 0) return;
    if (!Number.isSafeInteger(after.index) || after.index < 0 || !LOWER_HEX_64.test(after.hash)) {
      throw new Error('chain head to append after is malformed');
    }
    const json = rowsJson(rows);
    let tag: string;
    do tag = `$a${randomBytes(6).toString('hex')}$`;
    while (json.includes(tag));
    await this.dataSource.query(
      `SELECT pg_advisory_xact_lock(hashtext('${CHAIN_LOCK}'));
       DO $guard$ BEGIN
         IF NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE idx = ${after.index} AND hash = '${after.hash}') THEN
           RAISE EXCEPTION 'audit chain head is not where this writer expects it' USING ERRCODE = '${STALE_HEAD}';
         END IF;
       END $guard$;
       INSERT INTO ${TABLE} (${COLUMNS}) ${FROM_JSON(`${tag}${json}${tag}::json`)}`,
    );
  }

  /** Up to `limit` entries with index > `afterIndex`, in chain order (for verification). */
  async range(afterIndex: number, limit: number): Promise<StoredEntry[]> {
    const rows: EntryRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${TABLE} WHERE idx > $1 ORDER BY idx LIMIT $2`, [
      afterIndex,
      limit,
    ]);
    return rows.map(toEntry);
  }

  /** Hashes of entries with `fromIndex` ≤ index < `toIndex`, in order (Merkle leaves). */
  async hashes(fromIndex: number, toIndex: number): Promise<Array<{ index: number; hash: string }>> {
    const rows: Array<{ idx: string; hash: string }> = await this.dataSource.query(
      `SELECT idx, hash FROM ${TABLE} WHERE idx >= $1 AND idx < $2 ORDER BY idx`,
      [fromIndex, toIndex],
    );
    return rows.map((r) => ({ index: Number(r.idx), hash: r.hash }));
  }

  async byIndex(index: number): Promise<StoredEntry | undefined> {
    const rows: EntryRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${TABLE} WHERE idx = $1`, [index]);
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  async byId(id: string): Promise<StoredEntry | undefined> {
    const rows: EntryRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM ${TABLE} WHERE id = $1`, [id]);
    return rows[0] ? toEntry(rows[0]) : undefined;
  }

  /** A page of one application's entries after `afterIndex`, in chain order. */
  async listForApplication(applicationId: string, limit: number, afterIndex = -1): Promise<StoredEntry[]> {
    const rows: EntryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE application_id = $1 AND idx > $2 ORDER BY idx LIMIT $3`,
      [applicationId, afterIndex, limit],
    );
    return rows.map(toEntry);
  }

  /** One application's entries appended in [from, to), in chain order, at most `limit`. */
  async forApplicationBetween(applicationId: string, from: Date, to: Date, limit: number): Promise<StoredEntry[]> {
    const rows: EntryRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE application_id = $1 AND created_at >= $2 AND created_at < $3 ORDER BY idx LIMIT $4`,
      [applicationId, from, to, limit],
    );
    return rows.map(toEntry);
  }

  /** Number of entries and first/last index recorded for an application or agent. */
  async subjectSummary(
    column: 'application_id' | 'agent_id',
    value: string,
  ): Promise<{ count: number; first: number; last: number } | undefined> {
    const rows: Array<{ count: string; first: string | null; last: string | null }> = await this.dataSource.query(
      `SELECT count(*) AS count, min(idx) AS first, max(idx) AS last FROM ${TABLE} WHERE ${column} = $1`,
      [value],
    );
    const row = rows[0];
    if (!row || row.first === null || row.last === null) return undefined;
    return { count: Number(row.count), first: Number(row.first), last: Number(row.last) };
  }

  /** The chain's first entry (index 0), if the chain has begun. */
  async genesis(): Promise<StoredEntry | undefined> {
    return this.byIndex(0);
  }

  async size(): Promise<number> {
    const head = await this.head();
    return head ? head.index + 1 : 0;
  }
}

function toEntry(row: EntryRow): StoredEntry {
  return {
    index: Number(row.idx),
    id: row.id,
    previousHash: row.previous_hash,
    hash: row.hash,
    canonical: row.canonical,
    type: row.entry_type,
    applicationId: row.application_id,
    agentId: row.agent_id,
    sourceEventId: row.source_event_id,
    createdAt: row.created_at,
  };
}
