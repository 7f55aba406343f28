import { Injectable } from '@nestjs/common';
import { escapeLiteral } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { OutboxInsert } from '@svc/persistence';
import type { CollectionChannel, ConsentRecord, PurposeDecision, Withdrawal, WithdrawalChannel } from './record';

interface RecordRow {
  id: string;
  application_id: string;
  flow_id: string;
  flow_version: number;
  subject_external_id: string | null;
  subject_email: string | null;
  decisions: Record<string, PurposeDecision>;
  notice_digest: string | null;
  collection_channel: CollectionChannel;
  captured_at: Date;
  recorded_at: Date;
  expires_at: Date | null;
  idempotency_key: string | null;
  request_digest: string;
  previous_record_id: string | null;
  withdrawn_purposes: string[];
}

const COLUMNS = `id, application_id, flow_id, flow_version, subject_external_id, subject_email, decisions, notice_digest, collection_channel,
  captured_at, recorded_at, expires_at, idempotency_key, request_digest, previous_record_id, withdrawn_purposes`;

function toRecord(row: RecordRow): ConsentRecord & { requestDigest: string } {
  return {
    id: row.id,
    applicationId: row.application_id,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    subject: { email: row.subject_email, external_id: row.subject_external_id },
    decisions: row.decisions,
    noticeDigest: row.notice_digest,
    channel: row.collection_channel,
    capturedAt: row.captured_at,
    recordedAt: row.recorded_at,
    expiresAt: row.expires_at,
    idempotencyKey: row.idempotency_key,
    previousRecordId: row.previous_record_id,
    withdrawnPurposes: row.withdrawn_purposes,
    requestDigest: row.request_digest,
  };
}

/** A record about to be inserted; `consentDuration` (ISO 8601) sets expires_at in SQL. */
export interface NewRecord extends Omit<ConsentRecord, 'expiresAt'> {
  consentDuration: string | null;
  requestDigest: string;
}

const WITHDRAWAL_COLUMNS =
  'id, record_id, purpose, channel, withdrawn_at, acted_by_delegate_id, acted_for_principal_id, acted_under_grant_id, acted_under_grant_type';

/** Queries of consent_records.records, record_heads and withdrawals. Reads are scoped by application. */
@Injectable()
export class RecordsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Serialises writes about one person and flow (both subject keys, in a fixed order: no deadlock). */
  async lockSubject(manager: EntityManager, applicationId: string, flowId: string, keys: readonly string[]): Promise<void> {
    for (const key of [...keys].sort()) {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`consent_records:${applicationId}:${flowId}:${key}`]);
    }
  }

  async find(applicationId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<ConsentRecord | undefined> {
    const rows: RecordRow[] = await manager.query(`SELECT ${COLUMNS} FROM consent_records.records WHERE id = $1 AND application_id = $2`, [
      id,
      applicationId,
    ]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async isHead(applicationId: string, record: ConsentRecord, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `SELECT 1 FROM consent_records.record_heads WHERE application_id = $1 AND flow_id = $2 AND record_id = $3 LIMIT 1`,
      [applicationId, record.flowId, record.id],
    );
    return rows.length > 0;
  }

  async withdrawalsOf(recordIds: readonly string[], manager: EntityManager = this.dataSource.manager): Promise<Withdrawal[]> {
    if (recordIds.length === 0) return [];
    const rows: Array<{
      record_id: string;
      purpose: string | null;
      channel: WithdrawalChannel;
      withdrawn_at: Date;
      acted_by_delegate_id: string | null;
      acted_for_principal_id: string | null;
      acted_under_grant_id: string | null;
      acted_under_grant_type: string | null;
    }> = await manager.query(
      // Split by purpose IS [NOT] NULL so each half uses its partial unique index (no table scan).
      `SELECT ${WITHDRAWAL_COLUMNS} FROM consent_records.withdrawals WHERE record_id = ANY($1) AND purpose IS NOT NULL
       UNION ALL SELECT ${WITHDRAWAL_COLUMNS} FROM consent_records.withdrawals WHERE record_id = ANY($1) AND purpose IS NULL ORDER BY id`,
      [recordIds],
    );
    return rows.map((r) => ({
      recordId: r.record_id,
      purpose: r.purpose,
      channel: r.channel,
      withdrawnAt: r.withdrawn_at,
      ...(r.acted_by_delegate_id !== null
        ? {
            actedBy: {
              delegateId: r.acted_by_delegate_id,
              principalId: r.acted_for_principal_id ?? '',
              delegationGrantId: r.acted_under_grant_id ?? '',
              delegationType: r.acted_under_grant_type ?? '',
            },
          }
        : {}),
    }));
  }

  /** When the retention sweep ended the record (term or data-policy retention), if it did. */
  async expiryOf(recordId: string, manager: EntityManager = this.dataSource.manager): Promise<Date | undefined> {
    const rows: Array<{ expired_at: Date }> = await manager.query(
      `SELECT expired_at FROM consent_records.record_expiries WHERE record_id = $1`,
      [recordId],
    );
    return rows[0]?.expired_at;
  }

  async insertWithdrawal(manager: EntityManager, withdrawal: Withdrawal): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.withdrawals (record_id, purpose, channel, withdrawn_at, acted_by_delegate_id, acted_for_principal_id, acted_under_grant_id, acted_under_grant_type)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        withdrawal.recordId,
        withdrawal.purpose,
        withdrawal.channel,
        withdrawal.withdrawnAt,
        withdrawal.actedBy?.delegateId ?? null,
        withdrawal.actedBy?.principalId ?? null,
        withdrawal.actedBy?.delegationGrantId ?? null,
        withdrawal.actedBy?.delegationType ?? null,
      ],
    );
  }

  /** Head records of every flow for a person found by external id or by email (case-insensitive). */
  /**
   * Head record ids of an application whose subject reference has one of these SHA-256 digests
   * (external ids as given, emails as stored: lower case): a person's links travel as digests only.
   */
  async headIdsForSubjectDigests(
    applicationId: string,
    externalIdDigests: readonly string[],
    emailDigests: readonly string[],
  ): Promise<string[]> {
    if (externalIdDigests.length === 0 && emailDigests.length === 0) return [];
    const rows: Array<{ record_id: string }> = await this.dataSource.query(
      `SELECT h.record_id FROM consent_records.record_heads h
       WHERE h.application_id = $1
         AND ((h.subject_key LIKE 'external_id:%' AND encode(sha256(convert_to(substr(h.subject_key, 13), 'UTF8')), 'hex') = ANY($2::text[]))
           OR (h.subject_key LIKE 'email:%' AND encode(sha256(convert_to(substr(h.subject_key, 7), 'UTF8')), 'hex') = ANY($3::text[])))
       ORDER BY h.record_id`,
      [applicationId, externalIdDigests, emailDigests],
    );
    return [...new Set(rows.map((r) => r.record_id))];
  }

  async headsForSubject(applicationId: string, by: { external_id?: string; email?: string }): Promise<ConsentRecord[]> {
    const key = by.external_id !== undefined ? `external_id:${by.external_id}` : `email:${(by.email ?? '').toLowerCase()}`;
    const rows: RecordRow[] = await this.dataSource.query(
      `SELECT DISTINCT ON (r.flow_id) ${COLUMNS.split(',')
        .map((c) => `r.${c.trim()}`)
        .join(', ')}
       FROM consent_records.record_heads h JOIN consent_records.records r ON r.id = h.record_id
       WHERE h.application_id = $1 AND h.subject_key = $2 ORDER BY r.flow_id, r.recorded_at DESC`,
      [applicationId, key],
    );
    return rows.map(toRecord);
  }
  // ---- set-based statements of the one record writer (BatchRecordWriter) ----

  /**
   * Runs a batch's three statements — subject locks, read, write — in the caller's transaction.
   * The read is a statement of its own so its snapshot is taken after the locks are held.
   */
  async batchInTransaction<T>(
    manager: EntityManager,
    read: BatchRead,
    write: (state: BatchState) => { statement: Statement; finish: (rows: BatchWritten[]) => T },
  ): Promise<T> {
    const [lock, select] = readStatements(read);
    await manager.query(lock.sql, lock.params);
    const state = toBatchState(await manager.query(select.sql, select.params));
    const { statement, finish } = write(state);
    return finish(statement.sql === '' ? [] : await manager.query(statement.sql, statement.params));
  }

  /**
   * The same three statements in a transaction of its own, in TWO round trips (group commit of the
   * Record API): `BEGIN; locks; read` then `write; COMMIT`, sent as simple-protocol scripts with
   * their values inlined as escaped literals (statements of one script still take their snapshots
   * one after the other). Any failure rolls back.
   */
  async batchCommitted<T>(
    read: BatchRead,
    write: (state: BatchState) => { statement: Statement; finish: (rows: BatchWritten[]) => T },
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const client = (await runner.connect()) as { query(sql: string): Promise<Array<{ rows: unknown[] }> | { rows: unknown[] }> };
    const script = async (...statements: string[]) => {
      const results = await client.query(statements.join(';\n'));
      return Array.isArray(results) ? results : [results];
    };
    let open = false;
    try {
      const [lock, select] = readStatements(read);
      open = true;
      const readResults = await script('BEGIN', inline(lock), inline(select));
      const state = toBatchState(readResults[2]!.rows as BatchRow[]);
      const { statement, finish } = write(state);
      const writeResults = statement.sql === '' ? await script('COMMIT') : await script(inline(statement), 'COMMIT');
      open = false;
      return finish(statement.sql === '' ? [] : (writeResults[0]!.rows as BatchWritten[]));
    } catch (error) {
      if (open) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }

  /**
   * The statement writing a batch at once: the new records, head pointers (keys of the batch
   * upserted; other keys still pointing at a replaced record moved to its replacement), the
   * withdrawals of the later-record rule, the outbox events and the relay's notification. Its
   * rows are each record's expires_at (captured_at + the flow's consent_duration, computed in SQL).
   */
  writeStatement(batch: {
    records: readonly NewRecord[];
    headMoves: ReadonlyArray<readonly [string, string]>;
    heads: ReadonlyArray<{ applicationId: string; flowId: string; key: string; recordId: string }>;
    withdrawals: ReadonlyArray<{ recordId: string; purpose: string }>;
    withdrawnAt: Date;
    /** The batch's events, numbered from parameter $11. */
    events: OutboxInsert;
  }): Statement {
    if (batch.records.length === 0) return { sql: '', params: [] };
    return {
      sql: `WITH ins AS (
         INSERT INTO consent_records.records (id, application_id, flow_id, flow_version, subject_external_id, subject_email, decisions, notice_digest,
           collection_channel, captured_at, recorded_at, expires_at, idempotency_key, request_digest, previous_record_id, withdrawn_purposes)
         SELECT x.id, x.application_id, x.flow_id, x.flow_version, x.subject_external_id, x.subject_email, x.decisions, x.notice_digest, x.collection_channel,
           x.captured_at, x.recorded_at, x.captured_at + x.consent_duration::interval, x.idempotency_key, x.request_digest, x.previous_record_id,
           ARRAY(SELECT jsonb_array_elements_text(x.withdrawn_purposes))
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, application_id text, flow_id text, flow_version integer, subject_external_id text, subject_email text,
           decisions jsonb, notice_digest text, collection_channel text, captured_at timestamptz, recorded_at timestamptz, consent_duration text,
           idempotency_key text, request_digest text, previous_record_id text, withdrawn_purposes jsonb)
         RETURNING id, expires_at
       ), moved AS (
         UPDATE consent_records.record_heads h SET record_id = m.next FROM unnest($2::text[], $3::text[]) AS m(prev, next)
         -- ANY gives the planner the index condition on record_id directly: with the join alone it
         -- scanned every head of the table when its statistics lagged behind a growing table.
         WHERE h.record_id = m.prev AND h.record_id = ANY($2::text[])
           AND NOT EXISTS (SELECT 1 FROM unnest($4::text[], $5::text[], $6::text[]) AS u(a, f, k) WHERE u.a = h.application_id AND u.f = h.flow_id AND u.k = h.subject_key)
         RETURNING 1
       ), heads AS (
         INSERT INTO consent_records.record_heads (application_id, flow_id, subject_key, record_id) SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::text[])
         ON CONFLICT (application_id, flow_id, subject_key) DO UPDATE SET record_id = EXCLUDED.record_id
         RETURNING 1
       ), withdrawn AS (
         INSERT INTO consent_records.withdrawals (record_id, purpose, channel, withdrawn_at) SELECT r, p, 'newer_record', $10::timestamptz FROM unnest($8::text[], $9::text[]) AS t(r, p)
         RETURNING 1
       ), events AS (
         ${batch.events.insert}
         RETURNING 1
       )
       SELECT ins.id, ins.expires_at FROM ins, (${batch.events.notify}) AS notified`,
      params: [
        JSON.stringify(
          batch.records.map((r) => ({
            id: r.id,
            application_id: r.applicationId,
            flow_id: r.flowId,
            flow_version: r.flowVersion,
            subject_external_id: r.subject.external_id,
            subject_email: r.subject.email,
            decisions: r.decisions,
            notice_digest: r.noticeDigest,
            collection_channel: r.channel,
            captured_at: r.capturedAt.toISOString(),
            recorded_at: r.recordedAt.toISOString(),
            consent_duration: r.consentDuration,
            idempotency_key: r.idempotencyKey,
            request_digest: r.requestDigest,
            previous_record_id: r.previousRecordId,
            withdrawn_purposes: r.withdrawnPurposes,
          })),
        ),
        batch.headMoves.map((m) => m[0]),
        batch.headMoves.map((m) => m[1]),
        batch.heads.map((h) => h.applicationId),
        batch.heads.map((h) => h.flowId),
        batch.heads.map((h) => h.key),
        batch.heads.map((h) => h.recordId),
        batch.withdrawals.map((w) => w.recordId),
        batch.withdrawals.map((w) => w.purpose),
        batch.withdrawnAt,
        ...batch.events.params,
      ],
    };
  }
}

/** One SQL statement with its positional parameters. */
export interface Statement {
  sql: string;
  params: unknown[];
}

/** What a batch locks and reads: advisory lock keys, (application, idempotency key) pairs, (application, flow, subject key) triples. */
export interface BatchRead {
  lockKeys: readonly string[];
  idempotency: ReadonlyArray<readonly [string, string]>;
  triples: ReadonlyArray<readonly [string, string, string]>;
}

/** State of the database for a batch, read under its locks. */
export interface BatchState {
  known: Array<{ record: ConsentRecord; digest: string }>;
  heads: Array<{ subjectKey: string; record: ConsentRecord }>;
  withdrawn: Map<string, { whole: boolean; purposes: string[] }>;
}

/** A written record's computed expiry. */
export interface BatchWritten {
  id: string;
  expires_at: Date | null;
}

/**
 * Withdrawn purposes of record `r` (NULL for a whole withdrawal). Split by purpose IS [NOT] NULL
 * so each half uses its partial unique index instead of scanning the table.
 */
const WITHDRAWN_PURPOSES_OF_R = `SELECT w.purpose FROM consent_records.withdrawals w WHERE w.record_id = r.id AND w.purpose IS NOT NULL
  UNION ALL SELECT NULL FROM consent_records.withdrawals w WHERE w.record_id = r.id AND w.purpose IS NULL`;

type BatchRow = RecordRow & { kind: 'known' | 'head'; subject_key: string | null; withdrawn: Array<string | null> | null };

/**
 * The advisory locks of every (application, flow, subject key) of a batch, taken in one sorted
 * statement; then one read: records already holding the batch's idempotency keys, and the current
 * heads with the withdrawals of their records.
 */
function readStatements(read: BatchRead): [Statement, Statement] {
  const columns = COLUMNS.split(',')
    .map((c) => `r.${c.trim()}`)
    .join(', ');
  return [
    {
      sql: `SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) s`,
      params: [read.lockKeys],
    },
    {
      sql: `SELECT 'known' AS kind, NULL::text AS subject_key, NULL::text[] AS withdrawn, ${columns}
         FROM unnest($1::text[], $2::text[]) AS t(a, k) JOIN consent_records.records r ON r.application_id = t.a AND r.idempotency_key = t.k
       UNION ALL
       SELECT 'head', h.subject_key, ARRAY(${WITHDRAWN_PURPOSES_OF_R}), ${columns}
         FROM unnest($3::text[], $4::text[], $5::text[]) AS t(a, f, k)
         JOIN consent_records.record_heads h ON h.application_id = t.a AND h.flow_id = t.f AND h.subject_key = t.k
         JOIN consent_records.records r ON r.id = h.record_id`,
      params: [
        read.idempotency.map((i) => i[0]),
        read.idempotency.map((i) => i[1]),
        read.triples.map((t) => t[0]),
        read.triples.map((t) => t[1]),
        read.triples.map((t) => t[2]),
      ],
    },
  ];
}

function toBatchState(rows: readonly BatchRow[]): BatchState {
  const state: BatchState = { known: [], heads: [], withdrawn: new Map() };
  for (const row of rows) {
    const record = toRecord(row);
    if (row.kind === 'known') {
      state.known.push({ record, digest: record.requestDigest });
      continue;
    }
    state.heads.push({ subjectKey: row.subject_key!, record });
    const purposes = row.withdrawn ?? [];
    state.withdrawn.set(record.id, { whole: purposes.includes(null), purposes: purposes.filter((p): p is string => p !== null) });
  }
  return state;
}

/** The text form of a parameter, as the driver would send it: arrays as array literals, dates as ISO, bytes as hex. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) {
    const element = (item: unknown) => {
      const text = textOf(item);
      return text === null ? 'NULL' : `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    };
    return `{${value.map(element).join(',')}}`;
  }
  return String(value);
}

/**
 * A statement with its parameters inlined as literals for a simple-protocol script: each value in
 * the text form the driver sends for a parameter, quoted by the driver's own `escapeLiteral`. Every parameter
 * of the statements above carries an explicit cast, so the types are the same.
 */
function inline(statement: Statement): string {
  return statement.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const text = textOf(statement.params[Number(n) - 1]);
    return text === null ? 'NULL' : escapeLiteral(text);
  });
}
