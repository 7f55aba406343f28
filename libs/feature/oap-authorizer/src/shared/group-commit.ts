/** The outcome of one job of a batch. */
export type JobOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Group commit: concurrent callers queue jobs; one writer takes everything queued (up to
 * `maxBatch`) and hands it to `run`, which commits the whole batch at once and returns one outcome
 * per job. While a batch runs, the next one gathers, so the batch size follows the load with no
 * timer. Each caller is answered only after its batch settled; when `run` throws (the shared
 * commit failed), every caller of that batch gets the error, unless `retryable` says the failure
 * left nothing behind and may pass on a second try (a deadlock victim): then the batch runs again,
 * up to `maxAttempts` times in all.
 */
export class GroupCommitQueue<J, R> {
  private readonly queue: Array<{ job: J; resolve: (value: R) => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly run: (jobs: J[]) => Promise<Array<JobOutcome<R>>>,
    private readonly maxBatch: number,
    private readonly retry: { retryable: (error: unknown) => boolean; maxAttempts: number } = { retryable: () => false, maxAttempts: 1 },
  ) {}

  submit(job: J): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          const outcomes = await this.runWithRetry(batch.map((entry) => entry.job));
          batch.forEach((entry, index) => {
            const outcome = outcomes[index];
            if (!outcome) entry.reject(new Error('group commit returned no outcome for a job'));
            else if (outcome.ok) entry.resolve(outcome.value);
            else entry.reject(outcome.error);
          });
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }

  private async runWithRetry(jobs: J[]): Promise<Array<JobOutcome<R>>> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.run(jobs);
      } catch (error) {
        if (attempt >= this.retry.maxAttempts || !this.retry.retryable(error)) throw error;
      }
    }
  }
}
