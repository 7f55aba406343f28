import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { commitIsolatingFailures, RETRY_TRANSACTION_CONFLICTS, type JobOutcome } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import { BUSINESS_METRICS, Metrics, type Logger } from '@svc/telemetry';
import type { Counter } from 'prom-client';
import type { EntityManager } from 'typeorm';
import type { FlowVersion } from '../../flows/flow';
import { FlowsRepository } from '../../flows/flows.repository';
import { activeCapturableFlow } from '../../records/active-flow';
import { BatchRecordWriter } from '../../records/batch-record-writer';
import type { RecordDraft } from '../../records/record-writer';
import type { ConsentImport } from '../import';
import { checkImportRow, type RowCheck } from '../import-row';
import { ImportsRepository, type RowResult } from '../imports.repository';

/** Rows written per transaction (group commit: one commit per batch, not per row). */
export const IMPORT_BATCH_ROWS = 2000;
/** A claimed import is resumed by another worker if its lease is not renewed within this, in ms. */
export const IMPORT_LEASE_MS = 60_000;
/** Idle poll interval, in ms (creation wakes the worker at once). */
export const IMPORT_POLL_MS = 1_000;

/**
 * Processes stored import rows in the background, batch by batch, each batch in one transaction
 * with its outcomes and progress counts, so a restart resumes at the first pending row and holds
 * at most one batch in memory. A refused row is recorded as failed and never blocks the others;
 * a batch the database refuses (a deadlock runs it again) is written again row by row, and a row
 * that cannot be written alone is recorded as failed (`internal_error`).
 */
@Injectable()
export class ImportWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private loop?: Promise<void>;
  private stopped = false;
  private again = false;
  private readonly rowsCounted: Counter<'outcome'>;

  constructor(
    private readonly imports: ImportsRepository,
    private readonly flows: FlowsRepository,
    private readonly writer: BatchRecordWriter,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.rowsCounted = metrics.counterOf(BUSINESS_METRICS.importRows);
  }

  onApplicationBootstrap(): void {
    this.wake();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
  }

  /** Starts a round now (or right after the current one). */
  wake(): void {
    if (this.stopped) return;
    if (this.loop) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.loop = this.drain()
      .catch((error: unknown) => this.logger.error({ err: error }, 'import worker round failed'))
      .finally(() => {
        this.loop = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else this.timer = setTimeout(() => this.wake(), IMPORT_POLL_MS);
      });
  }

  /** Removes uploads that broke off with their process, then processes claimable imports until none is left; returns when idle. */
  async drain(): Promise<void> {
    await this.imports.dropAbandoned(this.clock.now());
    for (;;) {
      if (this.stopped) return;
      const job = await this.imports.claim(this.leaseUntil(), this.clock.now());
      if (!job) return;
      await this.process(job);
    }
  }

  private leaseUntil(): Date {
    return new Date(this.clock.now().getTime() + IMPORT_LEASE_MS);
  }

  private async process(job: ConsentImport): Promise<void> {
    let flow: FlowVersion | undefined;
    let flowError: { reasonCode: string; detail: Record<string, unknown> } | undefined;
    try {
      flow = await activeCapturableFlow(this.flows, job.applicationId, job.flowId);
    } catch (error) {
      if (!isDomainError(error)) throw error;
      flowError = { reasonCode: error.code, detail: { message: error.message } };
    }
    const read = (after: number) => {
      const rows = this.imports.pendingRows(job.id, after, IMPORT_BATCH_ROWS);
      rows.catch(() => undefined); // awaited below; a failure is handled there, not as an unhandled rejection
      return rows;
    };
    let next = read(-1);
    for (;;) {
      if (this.stopped) return;
      const rows = await next;
      if (rows.length === 0) break;
      // The next batch is read (on another connection) while this one is checked and written, so
      // an import's reads and writes overlap instead of taking turns.
      next = read(rows.at(-1)!.index);
      const now = this.clock.now();
      const checks = flow ? checkRows(rows, flow, job.applicationId, now) : undefined;
      const outcomes = await commitIsolatingFailures(
        rows,
        (batch) =>
          this.imports.transaction(async (manager): Promise<Array<JobOutcome<RowResult>>> => {
            const results = checks
              ? await this.writeBatch(manager, batch, checks, now)
              : batch.map((r) => ({ index: r.index, outcome: 'failed' as const, recordId: null, ...flowError! }));
            await this.imports.saveResults(manager, job.id, results, this.leaseUntil());
            return results.map((result) => ({ ok: true, value: result }));
          }),
        RETRY_TRANSACTION_CONFLICTS,
        (error, size) => this.logger.warn({ err: error, import_id: job.id, size }, 'import batch failed; writing its rows one by one'),
      );
      const failed = rows.flatMap((row, i): RowResult[] => {
        const outcome = outcomes[i]!;
        return outcome.ok
          ? []
          : [
              {
                index: row.index,
                outcome: 'failed',
                recordId: null,
                reasonCode: 'internal_error',
                detail: { message: String((outcome.error as Error).message ?? outcome.error) },
              },
            ];
      });
      if (failed.length > 0)
        await this.imports.transaction((manager) => this.imports.saveResults(manager, job.id, failed, this.leaseUntil()));
      for (const outcome of outcomes) this.rowsCounted.inc({ outcome: outcome.ok ? outcome.value.outcome : 'failed' });
    }
    await this.imports.complete(job.id, this.clock.now());
  }

  private async writeBatch(
    manager: EntityManager,
    rows: ReadonlyArray<{ index: number; input: unknown }>,
    checks: ReadonlyMap<number, RowCheck>,
    now: Date,
  ): Promise<RowResult[]> {
    const results = new Map<number, RowResult>();
    const valid: Array<{ index: number; draft: RecordDraft }> = [];
    for (const row of rows) {
      const check = checks.get(row.index)!;
      if (check.ok) valid.push({ index: row.index, draft: check.draft });
      else
        results.set(row.index, { index: row.index, outcome: 'failed', recordId: null, reasonCode: check.reasonCode, detail: check.detail });
    }
    const written = await this.writer.writeMany(
      manager,
      valid.map((v) => v.draft),
      now,
    );
    written.forEach((result, i) => {
      const index = valid[i]!.index;
      results.set(
        index,
        result.ok
          ? {
              index,
              outcome: result.outcome.replayed ? 'duplicate' : 'created',
              recordId: result.outcome.record.id,
              reasonCode: null,
              detail: null,
            }
          : {
              index,
              outcome: 'failed',
              recordId: null,
              reasonCode: result.error.code,
              detail: { message: result.error.message, ...(result.error.detail ?? {}) },
            },
      );
    });
    return rows.map((row) => results.get(row.index)!);
  }
}

/** Each row checked against the flow (like a Record API body), before its batch's transaction opens. */
function checkRows(
  rows: ReadonlyArray<{ index: number; input: unknown }>,
  flow: FlowVersion,
  applicationId: string,
  now: Date,
): Map<number, RowCheck> {
  return new Map(rows.map((row) => [row.index, checkImportRow(row.input, flow, applicationId, now)]));
}
