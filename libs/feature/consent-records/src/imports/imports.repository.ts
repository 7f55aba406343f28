import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { ConsentImport, ImportRow, ImportStatus, RowOutcome } from './import';

interface ImportRowRecord {
  id: string;
  application_id: string;
  flow_id: string;
  status: ImportStatus;
  total: number;
  processed: number;
  created: number;
  duplicates: number;
  failed: number;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const COLUMNS = 'id, application_id, flow_id, status, total, processed, created, duplicates, failed, created_at, started_at, completed_at';

function toImport(row: ImportRowRecord): ConsentImport {
  return {
    id: row.id,
    applicationId: row.application_id,
    flowId: row.flow_id,
    status: row.status,
    total: row.total,
    processed: row.processed,
    created: row.created,
    duplicates: row.duplicates,
    failed: row.failed,
    createdAt: row.created_at,
    startedAt: row.started_at,
    completedAt: row.completed_at,
  };
}

/** A row's result, written back in bulk at the end of a batch. */
export interface RowResult {
  index: number;
  outcome: RowOutcome;
  recordId: string | null;
  reasonCode: string | null;
  detail: Record<string, unknown> | null;
}

/** Queries of consent_records.imports and import_rows. */
@Injectable()
export class ImportsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Opens a job whose body is still arriving (`receiving`, never claimed): its rows are stored as
   * they come with {@link storeReceivedRows}, then {@link queueReceived} hands it to the worker.
   */
  async insertReceiving(job: { id: string; applicationId: string }, at: Date, leaseUntil: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.imports (id, application_id, flow_id, status, total, created_at, lease_until) VALUES ($1, $2, '', 'receiving', 0, $3, $4)`,
      [job.id, job.applicationId, at, leaseUntil],
    );
  }

  /**
   * Stores rows `offset…offset+rows.length-1` of a receiving job in one statement (a jsonb array
   * expanded in SQL) and renews its lease, committed at once: no connection is held between chunks.
   */
  async storeReceivedRows(importId: string, offset: number, rows: readonly unknown[], leaseUntil: Date): Promise<void> {
    await this.dataSource.query(
      `WITH renewed AS (UPDATE consent_records.imports SET lease_until = $4 WHERE id = $1 AND status = 'receiving')
       INSERT INTO consent_records.import_rows (import_id, row_index, input)
       SELECT $1, $2::integer + (ord - 1)::integer, value FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(value, ord)`,
      [importId, offset, JSON.stringify(rows), leaseUntil],
    );
  }

  /** Hands a fully received job to the worker; false if it is no longer receiving (its lease ran out and it was removed). */
  async queueReceived(importId: string, flowId: string, total: number, manager = this.dataSource.manager): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `UPDATE consent_records.imports SET status = 'queued', flow_id = $2, total = $3, lease_until = NULL
       WHERE id = $1 AND status = 'receiving' RETURNING id`,
      [importId, flowId, total],
    );
    return rows.length > 0;
  }

  /** Removes a job that is still receiving, with its rows (a refused or aborted upload, or a dry run). */
  async dropReceiving(importId: string): Promise<void> {
    await this.dataSource.query(
      `WITH dropped AS (
         DELETE FROM consent_records.import_rows WHERE import_id = (SELECT id FROM consent_records.imports WHERE id = $1 AND status = 'receiving'))
       DELETE FROM consent_records.imports WHERE id = $1 AND status = 'receiving'`,
      [importId],
    );
  }

  /** Removes jobs whose upload stopped without an answer (the process died mid-upload): their lease ran out. */
  async dropAbandoned(now: Date): Promise<void> {
    await this.dataSource.query(
      `WITH abandoned AS (SELECT id FROM consent_records.imports WHERE status = 'receiving' AND lease_until < $1),
            dropped AS (DELETE FROM consent_records.import_rows WHERE import_id IN (SELECT id FROM abandoned))
       DELETE FROM consent_records.imports WHERE id IN (SELECT id FROM abandoned)`,
      [now],
    );
  }

  async find(applicationId: string, id: string): Promise<ConsentImport | undefined> {
    const rows: ImportRowRecord[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM consent_records.imports WHERE id = $1 AND application_id = $2 AND status <> 'receiving'`,
      [id, applicationId],
    );
    return rows[0] ? toImport(rows[0]) : undefined;
  }

  /**
   * Claims the oldest unfinished import whose lease ran out (or never existed): a worker that died
   * mid-import leaves a lease that lapses, so another worker (or the restarted one) resumes it.
   */
  async claim(leaseUntil: Date, now: Date): Promise<ConsentImport | undefined> {
    const rows = await queryRows<ImportRowRecord>(
      this.dataSource.manager,
      `UPDATE consent_records.imports SET status = 'running', started_at = COALESCE(started_at, $2), lease_until = $1
       WHERE id = (SELECT id FROM consent_records.imports WHERE status <> 'completed' AND status <> 'receiving' AND (lease_until IS NULL OR lease_until < $2)
                   ORDER BY created_at FOR UPDATE SKIP LOCKED LIMIT 1)
       RETURNING ${COLUMNS}`,
      [leaseUntil, now],
    );
    return rows[0] ? toImport(rows[0]) : undefined;
  }

  /**
   * The next pending rows after index `after`, in order. One worker holds an import at a time (its
   * lease), so it may read the next batch while it writes this one; a dry run reads its rows back
   * the same way (none of a receiving job's rows has an outcome).
   */
  async pendingRows(importId: string, after: number, limit: number): Promise<Array<{ index: number; input: unknown }>> {
    const rows: Array<{ row_index: number; input: unknown }> = await this.dataSource.query(
      `SELECT row_index, input FROM consent_records.import_rows WHERE import_id = $1 AND outcome IS NULL AND row_index > $2 ORDER BY row_index LIMIT $3`,
      [importId, after, limit],
    );
    return rows.map((r) => ({ index: r.row_index, input: r.input }));
  }

  /** Writes a batch's outcomes, adds them to the job's counts and renews the lease. */
  async saveResults(manager: EntityManager, importId: string, results: readonly RowResult[], leaseUntil: Date): Promise<void> {
    if (results.length === 0) return;
    await manager.query(
      `UPDATE consent_records.import_rows r SET outcome = x.outcome, record_id = x.record_id, reason_code = x.reason_code, detail = x.detail
       FROM jsonb_to_recordset($2::jsonb) AS x(index integer, outcome text, record_id text, reason_code text, detail jsonb)
       WHERE r.import_id = $1 AND r.row_index = x.index`,
      [
        importId,
        JSON.stringify(
          results.map((r) => ({ index: r.index, outcome: r.outcome, record_id: r.recordId, reason_code: r.reasonCode, detail: r.detail })),
        ),
      ],
    );
    const count = (o: RowOutcome) => results.filter((r) => r.outcome === o).length;
    await manager.query(
      `UPDATE consent_records.imports SET processed = processed + $2, created = created + $3, duplicates = duplicates + $4, failed = failed + $5, lease_until = $6 WHERE id = $1`,
      [importId, results.length, count('created'), count('duplicate'), count('failed'), leaseUntil],
    );
  }

  async complete(importId: string, at: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE consent_records.imports SET status = 'completed', completed_at = $2, lease_until = NULL WHERE id = $1`,
      [importId, at],
    );
  }

  async rows(importId: string, limit: number, after: number, outcome?: RowOutcome | 'pending'): Promise<ImportRow[]> {
    const rows: Array<{
      row_index: number;
      outcome: RowOutcome | null;
      record_id: string | null;
      reason_code: string | null;
      detail: Record<string, unknown> | null;
    }> = await this.dataSource.query(
      `SELECT row_index, outcome, record_id, reason_code, detail FROM consent_records.import_rows
         WHERE import_id = $1 AND row_index > $2 AND ($3::text IS NULL OR ($3 = 'pending' AND outcome IS NULL) OR outcome = $3)
         ORDER BY row_index LIMIT $4`,
      [importId, after, outcome ?? null, limit],
    );
    return rows.map((r) => ({
      index: r.row_index,
      outcome: r.outcome,
      recordId: r.record_id,
      reasonCode: r.reason_code,
      detail: r.detail,
    }));
  }

  /** Which of `keys` are already used by records of the application, with their request digests. */
  async existingKeys(applicationId: string, keys: readonly string[]): Promise<Map<string, { recordId: string; digest: string }>> {
    if (keys.length === 0) return new Map();
    const rows: Array<{ idempotency_key: string; id: string; request_digest: string }> = await this.dataSource.query(
      `SELECT idempotency_key, id, request_digest FROM consent_records.records WHERE application_id = $1 AND idempotency_key = ANY($2)`,
      [applicationId, keys],
    );
    return new Map(rows.map((r) => [r.idempotency_key, { recordId: r.id, digest: r.request_digest }]));
  }
}
