import { outsideClaim } from './idempotency/claim-context';

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

/** The platform's rule for a shared commit: a deadlock victim or serialization failure runs again, three tries in all. */
export const RETRY_TRANSACTION_CONFLICTS: BatchRetryPolicy = { retryable: isTransactionConflict, maxAttempts: 3 };

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
  policy: BatchRetryPolicy = RETRY_TRANSACTION_CONFLICTS,
  onSplit?: (error: unknown, size: number) => void,
): Promise<Array<JobOutcome<R>>> {
  if (jobs.length === 0) return [];
  try {
    const outcomes = await commitWithRetry([...jobs], commit, policy);
    return jobs.map(
      (_, index): JobOutcome<R> => outcomes[index] ?? { ok: false, error: new Error('group commit returned no outcome for a job') },
    );
  } catch (error) {
    if (jobs.length === 1) return [{ ok: false, error }];
    onSplit?.(error, jobs.length);
    const alone: Array<JobOutcome<R>> = [];
    for (const job of jobs) alone.push(...(await commitIsolatingFailures([job], commit, policy)));
    return alone;
  }
}

async function commitWithRetry<J, R>(
  jobs: J[],
  commit: (jobs: J[]) => Promise<Array<JobOutcome<R>>>,
  policy: BatchRetryPolicy,
): Promise<Array<JobOutcome<R>>> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await commit(jobs);
    } catch (error) {
      if (attempt >= policy.maxAttempts || !policy.retryable(error)) throw error;
    }
  }
}

/** Bounds and failure rules of a {@link GroupCommitQueue}. */
export interface GroupCommitOptions {
  /** Most jobs one commit takes. */
  readonly maxBatch: number;
  /**
   * How long a batch smaller than `maxBatch` waits for company when no commit is running, ms.
   * 0 (the default): a lone job is committed at once and batches grow only with load.
   */
  readonly windowMs?: number;
  /** Commits running at once (default 1). One commit's round trips then overlap the next one's. */
  readonly maxInFlight?: number;
  /**
   * While a commit runs, a further one (up to `maxInFlight`) starts only once this many jobs are
   * queued (default 1: any job). Set to `maxBatch` when commits serialise in the database anyway
   * (one lock): an overlapping commit is then worth its round trip only as a full batch, and
   * smaller ones wait for the running writer, which takes them as one batch when it is done.
   */
  readonly overlapAt?: number;
  /** Which failures run a batch again (default: transaction conflicts, three tries). */
  readonly retry?: BatchRetryPolicy;
  /** Told before a failed batch is committed job by job. */
  readonly onSplit?: (error: unknown, size: number) => void;
}

interface Queued<J, R> {
  job: J;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: concurrent callers queue jobs; a writer takes everything queued (up to
 * `maxBatch`) and hands it to `commit`, which commits the whole batch at once and returns one
 * outcome per job. While a batch runs, the next one gathers, so the batch size follows the load;
 * `windowMs` optionally lets a lone job wait briefly for company, and up to `maxInFlight` writers
 * commit at once. Each caller is answered only after its batch settled. A failed batch is handled
 * by {@link commitIsolatingFailures}: retryable conflicts run it again, any other failure re-runs
 * its jobs one by one so one bad job cannot fail the others. Batches run outside the
 * `Idempotency-Key` claim of the request that started the writer ({@link outsideClaim}).
 */
export class GroupCommitQueue<J, R> {
  private readonly queue: Array<Queued<J, R>> = [];
  private readonly writers = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private readonly maxBatch: number;
  private readonly windowMs: number;
  private readonly maxInFlight: number;
  private readonly overlapAt: number;

  constructor(
    private readonly commit: (jobs: J[]) => Promise<Array<JobOutcome<R>>>,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxBatch = options.maxBatch;
    this.windowMs = options.windowMs ?? 0;
    this.maxInFlight = options.maxInFlight ?? 1;
    this.overlapAt = Math.min(Math.max(1, options.overlapAt ?? 1), this.maxBatch);
  }

  submit(job: J): Promise<R> {
    const [answer] = this.submitAll([job]);
    return answer!;
  }

  /** Queues several jobs at once (so they can share a commit); one promise per job, in order. */
  submitAll(jobs: readonly J[]): Array<Promise<R>> {
    const answers = jobs.map((job) => new Promise<R>((resolve, reject) => this.queue.push({ job, resolve, reject })));
    this.schedule();
    return answers;
  }

  /** Resolves once everything queued so far has been committed or failed (for shutdown). */
  async idle(): Promise<void> {
    while (this.queue.length > 0 || this.writers.size > 0) {
      if (this.writers.size === 0) this.startWriter();
      await Promise.all([...this.writers]);
    }
  }

  private schedule(): void {
    if (this.writers.size >= this.maxInFlight) return; // a running writer takes the queue when its commit is done
    if (this.writers.size > 0 && this.queue.length < this.overlapAt) return; // likewise
    if (this.windowMs === 0 || this.queue.length >= this.maxBatch || this.writers.size > 0) this.startWriter();
    else this.timer ??= setTimeout(() => this.startWriter(), this.windowMs);
  }

  private startWriter(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queue.length === 0 || this.writers.size >= this.maxInFlight) return;
    // The writer runs in the async context of whichever caller started it, but commits a batch
    // of many callers' jobs: it must not count as that caller's request (its transaction would
    // mark the caller's Idempotency-Key claim applied for the whole batch).
    const writer: Promise<void> = outsideClaim(() => this.write()).finally(() => {
      this.writers.delete(writer);
      if (this.queue.length > 0) this.schedule();
    });
    this.writers.add(writer);
    // The writer took its first batch already (synchronously): what remains may be worth another.
    if (this.queue.length >= this.overlapAt) this.schedule();
  }

  private async write(): Promise<void> {
    // Past its first batch a writer goes on only as the sole writer or with a batch worth overlapping.
    let first = true;
    while (this.queue.length > 0 && (first || this.writers.size <= 1 || this.queue.length >= this.overlapAt)) {
      first = false;
      const batch = this.queue.splice(0, this.maxBatch);
      const outcomes = await commitIsolatingFailures(
        batch.map((entry) => entry.job),
        this.commit,
        this.options.retry,
        this.options.onSplit,
      );
      batch.forEach((entry, index) => {
        const outcome = outcomes[index]!;
        if (outcome.ok) entry.resolve(outcome.value);
        else entry.reject(outcome.error);
      });
    }
  }
}
