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
