/** The outcome of one job of a batch. */
export type JobOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Which failures of a shared commit may simply be run again, and how often in all. */
export interface BatchRetryPolicy {
  /** True when the failure rolled everything back and may pass on a second try (a deadlock victim). */
  readonly retryable: (error: unknown) => boolean;
  readonly maxAttempts: number;
}

export const NO_BATCH_RETRY: BatchRetryPolicy = { retryable: () => false, maxAttempts: 1 };

/**
 * Postgres aborted the transaction as a deadlock victim (40P01) or a serialization failure (40001):
 * the whole transaction rolled back, so running it again is safe.
 */
export function isTransactionConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

/**
 * Commits `jobs` with ONE call of `commit` and answers one outcome per job, never throwing. A
 * retryable failure runs the batch again (up to `policy.maxAttempts`). Any other failure of a
 * batch of several jobs cannot be pinned on one of them, so each job is then committed alone
 * (with the same retry rule): only the job that cannot be committed fails, the others commit and
 * answer normally. `onSplit` is told before the jobs are committed one by one.
 */
export async function commitIsolatingFailures<J, R>(
  jobs: readonly J[],
  commit: (jobs: J[]) => Promise<Array<JobOutcome<R>>>,
  policy: BatchRetryPolicy = NO_BATCH_RETRY,
  onSplit?: (error: unknown, size: number) => void,
): Promise<Array<JobOutcome<R>>> {
  if (jobs.length === 0) return [];
  try {
    const outcomes = await commitWithRetry([...jobs], commit, policy);
    return jobs.map((_, index): JobOutcome<R> => outcomes[index] ?? { ok: false, error: new Error('group commit returned no outcome for a job') });
  } catch (error) {
    if (jobs.length === 1) return [{ ok: false, error }];
    onSplit?.(error, jobs.length);
    const alone: Array<JobOutcome<R>> = [];
    for (const job of jobs) alone.push(...(await commitIsolatingFailures([job], commit, policy)));
    return alone;
  }
}

async function commitWithRetry<J, R>(jobs: J[], commit: (jobs: J[]) => Promise<Array<JobOutcome<R>>>, policy: BatchRetryPolicy): Promise<Array<JobOutcome<R>>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await commit(jobs);
    } catch (error) {
      if (attempt >= policy.maxAttempts || !policy.retryable(error)) throw error;
    }
  }
}

/**
 * Group commit: concurrent callers queue jobs; one writer takes everything queued (up to
 * `maxBatch`) and hands it to `commit`, which commits the whole batch at once and returns one
 * outcome per job. While a batch runs, the next one gathers, so the batch size follows the load
 * with no timer. Each caller is answered only after its batch settled. A failed batch is handled by
 * {@link commitIsolatingFailures}: retryable conflicts run it again, any other failure re-runs its
 * jobs one by one so one bad job cannot fail the others.
 */
export class GroupCommitQueue<J, R> {
  private readonly queue: Array<{ job: J; resolve: (value: R) => void; reject: (error: unknown) => void }> = [];
  private writing = false;

  constructor(
    private readonly commit: (jobs: J[]) => Promise<Array<JobOutcome<R>>>,
    private readonly maxBatch: number,
    private readonly retry: BatchRetryPolicy = NO_BATCH_RETRY,
    private readonly onSplit?: (error: unknown, size: number) => void,
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
        const outcomes = await commitIsolatingFailures(
          batch.map((entry) => entry.job),
          this.commit,
          this.retry,
          this.onSplit,
        );
        batch.forEach((entry, index) => {
          const outcome = outcomes[index]!;
          if (outcome.ok) entry.resolve(outcome.value);
          else entry.reject(outcome.error);
        });
      }
    } finally {
      this.writing = false;
    }
  }
}
