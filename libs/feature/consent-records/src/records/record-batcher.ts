import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { commitIsolatingFailures, isTransactionConflict, type JobOutcome } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import { inBatchSpan, traceCarrierOf, type Logger } from '@svc/telemetry';
import { BatchRecordWriter } from './batch-record-writer';
import type { RecordDraft, WriteOutcome } from './record-write';

/** Most drafts committed in one transaction. */
export const RECORD_BATCH_MAX = 256;
/**
 * Group commits in flight at once. One commit's round trips overlap the next one's instead of
 * every waiting request idling behind them; the subject locks order commits about one person.
 */
export const RECORD_COMMITS_IN_FLIGHT = 2;

interface Pending {
  draft: RecordDraft;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the Record API (architecture: hot write paths commit in groups). Requests that
 * arrive while commits are in flight wait and are then written together in ONE transaction by
 * BatchRecordWriter (three statements, two round trips per batch) — no timer, so a lone request is
 * committed at once and batches grow with load. Up to RECORD_COMMITS_IN_FLIGHT batches commit
 * concurrently. `recorded_at` is the platform time of the commit. A deadlock runs the batch again;
 * any other database failure (e.g. two first uses of one idempotency key racing in two commits)
 * commits each draft alone so one cannot fail the others.
 */
@Injectable()
export class RecordBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly writer: BatchRecordWriter,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  submit(draft: RecordDraft): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((resolve, reject) => {
      // The commit runs in whichever request's context started it: keep each draft's own trace.
      const trace = draft.trace ?? traceCarrierOf();
      this.queue.push({ draft: trace ? { ...draft, trace } : draft, resolve, reject });
      if (this.inFlight < RECORD_COMMITS_IN_FLIGHT) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight += 1;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, RECORD_BATCH_MAX);
        await inBatchSpan('consent_records record commit', batch.map((p) => p.draft.trace), { 'db.system.name': 'postgresql', 'db.operation.batch.size': batch.length }, () => this.commit(batch));
      }
    } finally {
      this.inFlight -= 1;
    }
  }

  private async commit(batch: readonly Pending[]): Promise<void> {
    const now = this.clock.now();
    const outcomes = await commitIsolatingFailures(
      batch.map((p) => p.draft),
      async (drafts): Promise<Array<JobOutcome<WriteOutcome>>> =>
        (await this.writer.commitMany(drafts, now)).map((result) => (result.ok ? { ok: true, value: result.outcome } : { ok: false, error: result.error })),
      { retryable: isTransactionConflict, maxAttempts: 3 },
      (error, size) => this.logger.warn({ err: error, size }, 'record batch failed; committing its records one by one'),
    );
    outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));
  }
}
