import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { GroupCommitQueue, type JobOutcome } from '@svc/persistence';
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
  private readonly queue: GroupCommitQueue<RecordDraft, WriteOutcome>;

  constructor(writer: BatchRecordWriter, clock: Clock, @Inject(LOGGER) logger: Logger) {
    this.queue = new GroupCommitQueue(
      (drafts): Promise<Array<JobOutcome<WriteOutcome>>> =>
        inBatchSpan(
          'consent_records record commit',
          drafts.map((draft) => draft.trace),
          { 'db.system.name': 'postgresql', 'db.operation.batch.size': drafts.length },
          async () =>
            (await writer.commitMany(drafts, clock.now())).map((result) =>
              result.ok ? { ok: true, value: result.outcome } : { ok: false, error: result.error },
            ),
        ),
      {
        maxBatch: RECORD_BATCH_MAX,
        maxInFlight: RECORD_COMMITS_IN_FLIGHT,
        onSplit: (error, size) => logger.warn({ err: error, size }, 'record batch failed; committing its records one by one'),
      },
    );
  }

  submit(draft: RecordDraft): Promise<WriteOutcome> {
    // The commit runs in whichever request's context started it: keep each draft's own trace.
    const trace = draft.trace ?? traceCarrierOf();
    return this.queue.submit(trace ? { ...draft, trace } : draft);
  }
}
