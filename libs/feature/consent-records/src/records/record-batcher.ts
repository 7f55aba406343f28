import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { BatchRecordWriter } from './batch-record-writer';
import { RecordWriter, type RecordDraft, type WriteOutcome } from './record-writer';
import { RecordsRepository } from './records.repository';

/** Most drafts committed in one transaction. */
export const RECORD_BATCH_MAX = 256;

interface Pending {
  draft: RecordDraft;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the Record API (architecture: hot write paths commit in groups). Requests that
 * arrive while a commit is in flight wait for it and are then written together in ONE transaction
 * by BatchRecordWriter — no timer, so a lone request is committed at once. `recorded_at` is the
 * platform time of the commit. If the batch fails in the database (e.g. two first uses of one
 * idempotency key racing another process), each draft is retried alone so one cannot fail others.
 */
@Injectable()
export class RecordBatcher {
  private queue: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly records: RecordsRepository,
    private readonly batchWriter: BatchRecordWriter,
    private readonly writer: RecordWriter,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  submit(draft: RecordDraft): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((resolve, reject) => {
      this.queue.push({ draft, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, RECORD_BATCH_MAX);
        await this.commit(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async commit(batch: readonly Pending[]): Promise<void> {
    const now = this.clock.now();
    try {
      const results = await this.records.transaction((manager) => this.batchWriter.writeMany(manager, batch.map((p) => p.draft), now));
      results.forEach((result, i) => (result.ok ? batch[i]!.resolve(result.outcome) : batch[i]!.reject(result.error)));
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      this.logger.warn({ err: error, size: batch.length }, 'record batch failed; committing its records one by one');
      for (const pending of batch) {
        await this.records.transaction((manager) => this.writer.write(manager, pending.draft, now)).then(pending.resolve, pending.reject);
      }
    }
  }
}
