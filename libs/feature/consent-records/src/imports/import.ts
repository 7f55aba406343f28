import type { ConsentImportResponse } from './import.response';

/** Lifecycle of an import job: rows are stored first, then a worker processes them in batches. */
export const IMPORT_STATUSES = ['queued', 'running', 'completed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** What happened to one row: a new record, the original record of a seen idempotency key, or a refusal. */
export type RowOutcome = 'created' | 'duplicate' | 'failed';

/** An import job as stored. */
export interface ConsentImport {
  id: string;
  applicationId: string;
  flowId: string;
  status: ImportStatus;
  total: number;
  processed: number;
  created: number;
  duplicates: number;
  failed: number;
  createdAt: Date;
  startedAt: Date | null;
  completedAt: Date | null;
}

/** One processed (or pending) row. */
export interface ImportRow {
  index: number;
  outcome: RowOutcome | null;
  recordId: string | null;
  reasonCode: string | null;
  detail: Record<string, unknown> | null;
}

/** Wire shape of a row outcome (`outcome` null while pending). */
export function importRowView(row: ImportRow): Record<string, unknown> {
  return { index: row.index, outcome: row.outcome, record_id: row.recordId, reason_code: row.reasonCode, detail: row.detail };
}

/** Wire shape `consent_import` (without rows). */
export function importView(job: ConsentImport): Record<string, unknown> {
  return {
    id: job.id,
    object: 'consent_import',
    application_id: job.applicationId,
    flow_id: job.flowId,
    dry_run: false,
    status: job.status,
    counts: { total: job.total, processed: job.processed, pending: job.total - job.processed, created: job.created, duplicates: job.duplicates, failed: job.failed },
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
  } satisfies Omit<ConsentImportResponse, 'rows'>;
}
