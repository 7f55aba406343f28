import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
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

  async findByIdempotencyKey(manager: EntityManager, applicationId: string, key: string): Promise<(ConsentRecord & { requestDigest: string }) | undefined> {
    const rows: RecordRow[] = await manager.query(`SELECT ${COLUMNS} FROM consent_records.records WHERE application_id = $1 AND idempotency_key = $2`, [applicationId, key]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async find(applicationId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<ConsentRecord | undefined> {
    const rows: RecordRow[] = await manager.query(`SELECT ${COLUMNS} FROM consent_records.records WHERE id = $1 AND application_id = $2`, [id, applicationId]);
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  /** The record currently speaking for the person (any of their keys) and flow: the newest head. */
  async currentHead(manager: EntityManager, applicationId: string, flowId: string, keys: readonly string[]): Promise<ConsentRecord | undefined> {
    const rows: RecordRow[] = await manager.query(
      `SELECT ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')} FROM consent_records.record_heads h JOIN consent_records.records r ON r.id = h.record_id
       WHERE h.application_id = $1 AND h.flow_id = $2 AND h.subject_key = ANY($3) ORDER BY r.recorded_at DESC, r.id DESC LIMIT 1`,
      [applicationId, flowId, keys],
    );
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async isHead(applicationId: string, record: ConsentRecord, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM consent_records.record_heads WHERE application_id = $1 AND flow_id = $2 AND record_id = $3 LIMIT 1`, [
      applicationId,
      record.flowId,
      record.id,
    ]);
    return rows.length > 0;
  }

  async insert(manager: EntityManager, record: NewRecord): Promise<ConsentRecord> {
    const rows: RecordRow[] = await manager.query(
      `INSERT INTO consent_records.records (id, application_id, flow_id, flow_version, subject_external_id, subject_email, decisions, notice_digest,
         collection_channel, captured_at, recorded_at, expires_at, idempotency_key, request_digest, previous_record_id, withdrawn_purposes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $10::timestamptz + $12::interval, $13, $14, $15, $16)
       RETURNING ${COLUMNS}`,
      [
        record.id,
        record.applicationId,
        record.flowId,
        record.flowVersion,
        record.subject.external_id,
        record.subject.email,
        JSON.stringify(record.decisions),
        record.noticeDigest,
        record.channel,
        record.capturedAt,
        record.recordedAt,
        record.consentDuration,
        record.idempotencyKey,
        record.requestDigest,
        record.previousRecordId,
        record.withdrawnPurposes,
      ],
    );
    return toRecord(rows[0]!);
  }

  /**
   * Points the person's keys at `recordId`; every key that pointed at `previousId` moves too, so
   * a record matched by email alone still supersedes the one filed under the external id.
   */
  async setHeads(manager: EntityManager, applicationId: string, flowId: string, keys: readonly string[], recordId: string, previousId: string | null): Promise<void> {
    if (previousId !== null) {
      await manager.query(`UPDATE consent_records.record_heads SET record_id = $2 WHERE record_id = $1`, [previousId, recordId]);
    }
    await manager.query(
      `INSERT INTO consent_records.record_heads (application_id, flow_id, subject_key, record_id) SELECT $1, $2, k, $4 FROM unnest($3::text[]) AS k
       ON CONFLICT (application_id, flow_id, subject_key) DO UPDATE SET record_id = EXCLUDED.record_id`,
      [applicationId, flowId, keys, recordId],
    );
  }

  async withdrawalsOf(recordIds: readonly string[], manager: EntityManager = this.dataSource.manager): Promise<Withdrawal[]> {
    if (recordIds.length === 0) return [];
    const rows: Array<{ record_id: string; purpose: string | null; channel: WithdrawalChannel; withdrawn_at: Date }> = await manager.query(
      `SELECT record_id, purpose, channel, withdrawn_at FROM consent_records.withdrawals WHERE record_id = ANY($1) ORDER BY id`,
      [recordIds],
    );
    return rows.map((r) => ({ recordId: r.record_id, purpose: r.purpose, channel: r.channel, withdrawnAt: r.withdrawn_at }));
  }

  async insertWithdrawal(manager: EntityManager, withdrawal: Withdrawal): Promise<void> {
    await manager.query(`INSERT INTO consent_records.withdrawals (record_id, purpose, channel, withdrawn_at) VALUES ($1, $2, $3, $4)`, [
      withdrawal.recordId,
      withdrawal.purpose,
      withdrawal.channel,
      withdrawal.withdrawnAt,
    ]);
  }

  /** Head records of every flow for a person found by external id or by email (case-insensitive). */
  async headsForSubject(applicationId: string, by: { external_id?: string; email?: string }): Promise<ConsentRecord[]> {
    const key = by.external_id !== undefined ? `external_id:${by.external_id}` : `email:${(by.email ?? '').toLowerCase()}`;
    const rows: RecordRow[] = await this.dataSource.query(
      `SELECT DISTINCT ON (r.flow_id) ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}
       FROM consent_records.record_heads h JOIN consent_records.records r ON r.id = h.record_id
       WHERE h.application_id = $1 AND h.subject_key = $2 ORDER BY r.flow_id, r.recorded_at DESC`,
      [applicationId, key],
    );
    return rows.map(toRecord);
  }
  // ---- set-based statements of the group-commit writer (BatchRecordWriter) ----

  /** Records holding any of the (application, idempotency key) pairs, with their request digests. */
  async byIdempotencyKeys(manager: EntityManager, applicationIds: readonly string[], keys: readonly string[]): Promise<Array<{ record: ConsentRecord; digest: string }>> {
    if (keys.length === 0) return [];
    const rows: RecordRow[] = await manager.query(
      `SELECT ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')} FROM unnest($1::text[], $2::text[]) AS t(a, k)
       JOIN consent_records.records r ON r.application_id = t.a AND r.idempotency_key = t.k AND r.idempotency_key IS NOT NULL`,
      [applicationIds, keys],
    );
    return rows.map((row) => {
      const record = toRecord(row);
      return { record, digest: record.requestDigest };
    });
  }

  /** Current heads of the given (application, flow, subject key) triples. */
  async headsFor(manager: EntityManager, triples: ReadonlyArray<readonly [string, string, string]>): Promise<Array<{ subjectKey: string; record: ConsentRecord }>> {
    if (triples.length === 0) return [];
    const rows: Array<RecordRow & { subject_key: string }> = await manager.query(
      `SELECT h.subject_key, ${COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')} FROM unnest($1::text[], $2::text[], $3::text[]) AS t(a, f, k)
       JOIN consent_records.record_heads h ON h.application_id = t.a AND h.flow_id = t.f AND h.subject_key = t.k
       JOIN consent_records.records r ON r.id = h.record_id`,
      [triples.map((t) => t[0]), triples.map((t) => t[1]), triples.map((t) => t[2])],
    );
    return rows.map((row) => ({ subjectKey: row.subject_key, record: toRecord(row) }));
  }

  /** Inserts many records in one statement; returns each record's computed expires_at. */
  async insertMany(manager: EntityManager, records: ReadonlyArray<ConsentRecord & { digest: string; consentDuration: string | null }>): Promise<Map<string, Date | null>> {
    if (records.length === 0) return new Map();
    const rows: Array<{ id: string; expires_at: Date | null }> = await manager.query(
      `INSERT INTO consent_records.records (id, application_id, flow_id, flow_version, subject_external_id, subject_email, decisions, notice_digest,
         collection_channel, captured_at, recorded_at, expires_at, idempotency_key, request_digest, previous_record_id, withdrawn_purposes)
       SELECT x.id, x.application_id, x.flow_id, x.flow_version, x.subject_external_id, x.subject_email, x.decisions, x.notice_digest, x.collection_channel,
         x.captured_at, x.recorded_at, x.captured_at + x.consent_duration::interval, x.idempotency_key, x.request_digest, x.previous_record_id,
         ARRAY(SELECT jsonb_array_elements_text(x.withdrawn_purposes))
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, application_id text, flow_id text, flow_version integer, subject_external_id text, subject_email text,
         decisions jsonb, notice_digest text, collection_channel text, captured_at timestamptz, recorded_at timestamptz, consent_duration text,
         idempotency_key text, request_digest text, previous_record_id text, withdrawn_purposes jsonb)
       RETURNING id, expires_at`,
      [
        JSON.stringify(
          records.map((r) => ({
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
            request_digest: r.digest,
            previous_record_id: r.previousRecordId,
            withdrawn_purposes: r.withdrawnPurposes,
          })),
        ),
      ],
    );
    return new Map(rows.map((r) => [r.id, r.expires_at]));
  }

  /** Moves every head pointing at an old record to the record that replaced it. */
  async redirectHeads(manager: EntityManager, moves: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (moves.length === 0) return;
    await manager.query(
      `UPDATE consent_records.record_heads h SET record_id = m.next FROM unnest($1::text[], $2::text[]) AS m(prev, next) WHERE h.record_id = m.prev`,
      [moves.map((m) => m[0]), moves.map((m) => m[1])],
    );
  }

  async upsertHeads(manager: EntityManager, heads: ReadonlyArray<{ applicationId: string; flowId: string; key: string; recordId: string }>): Promise<void> {
    if (heads.length === 0) return;
    await manager.query(
      `INSERT INTO consent_records.record_heads (application_id, flow_id, subject_key, record_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
       ON CONFLICT (application_id, flow_id, subject_key) DO UPDATE SET record_id = EXCLUDED.record_id`,
      [heads.map((h) => h.applicationId), heads.map((h) => h.flowId), heads.map((h) => h.key), heads.map((h) => h.recordId)],
    );
  }

  async insertWithdrawals(manager: EntityManager, rows: ReadonlyArray<{ recordId: string; purpose: string }>, channel: WithdrawalChannel, at: Date): Promise<void> {
    if (rows.length === 0) return;
    await manager.query(
      `INSERT INTO consent_records.withdrawals (record_id, purpose, channel, withdrawn_at) SELECT r, p, $3, $4 FROM unnest($1::text[], $2::text[]) AS t(r, p)`,
      [rows.map((r) => r.recordId), rows.map((r) => r.purpose), channel, at],
    );
  }
}
