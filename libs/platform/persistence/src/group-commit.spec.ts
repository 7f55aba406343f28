import {
  commitIsolatingFailures,
  GroupCommitQueue,
  isTransactionConflict,
  NO_BATCH_RETRY,
  type GroupCommitOptions,
  type JobOutcome,
} from './group-commit';
import { currentClaim, RunningClaim, runUnderClaim, type AppliedMarker } from './idempotency/claim-context';

/** A queue whose commits each wait until released (in order): the batches it formed, and their releases. */
function heldQueue(options: GroupCommitOptions): {
  queue: GroupCommitQueue<number, number>;
  batches: number[][];
  releases: Array<() => void>;
} {
  const batches: number[][] = [];
  const releases: Array<() => void> = [];
  const queue = new GroupCommitQueue<number, number>(async (jobs) => {
    batches.push(jobs);
    await new Promise<void>((resolve) => releases.push(resolve));
    return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
  }, options);
  return { queue, batches, releases };
}

describe('GroupCommitQueue', () => {
  it('runs the first job at once, then everything that queued meanwhile as one batch (up to the size bound)', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstBatchDone = new Promise<void>((resolve) => (release = resolve));
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        batches.push(jobs);
        if (batches.length === 1) await firstBatchDone;
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job * 10 }));
      },
      { maxBatch: 3 },
    );
    const results = Promise.all([1, 2, 3, 4, 5, 6].map((job) => queue.submit(job)));
    release();
    expect(await results).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('answers each caller with its own outcome: one refused job does not fail the others', async () => {
    const queue = new GroupCommitQueue<string, string>(
      async (jobs) =>
        jobs.map((job): JobOutcome<string> => (job === 'bad' ? { ok: false, error: new Error('refused') } : { ok: true, value: job })),
      { maxBatch: 10 },
    );
    const settled = await Promise.allSettled(['a', 'bad', 'b'].map((job) => queue.submit(job)));
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('re-runs a batch whose shared commit failed one job at a time, so only the job that cannot commit fails', async () => {
    const commits: number[][] = [];
    let release!: () => void;
    const firstBatchDone = new Promise<void>((resolve) => (release = resolve));
    const splits: number[] = [];
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        commits.push(jobs);
        if (commits.length === 1) await firstBatchDone;
        if (jobs.includes(13)) throw new Error('invalid byte sequence');
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 10, retry: NO_BATCH_RETRY, onSplit: (_error, size) => splits.push(size) },
    );
    const first = queue.submit(1);
    const batch = [2, 13, 3].map((job) => queue.submit(job));
    release();
    expect(await first).toBe(1);
    const settled = await Promise.allSettled(batch);
    expect(settled).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('invalid byte sequence') },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(commits).toEqual([[1], [2, 13, 3], [2], [13], [3]]);
    expect(splits).toEqual([3]);
    expect(await queue.submit(4)).toBe(4);
  });

  it('keeps re-running a batch on retryable conflicts without splitting it while attempts remain', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const commits: number[][] = [];
    const outcomes = await commitIsolatingFailures<number, number>(
      [1, 2],
      async (jobs) => {
        commits.push(jobs);
        if (commits.length < 3) throw deadlock;
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { retryable: isTransactionConflict, maxAttempts: 3 },
    );
    expect(outcomes).toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 2 },
    ]);
    expect(commits).toEqual([
      [1, 2],
      [1, 2],
      [1, 2],
    ]);
  });

  it('runs a batch again when its failure is retryable (a deadlock victim), up to the attempt limit', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    let calls = 0;
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        calls += 1;
        if (calls < 3) throw deadlock;
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job * 10 }));
      },
      { maxBatch: 10, retry: { retryable: (error) => (error as { code?: string }).code === '40P01', maxAttempts: 3 } },
    );
    expect(await queue.submit(7)).toBe(70);
    expect(calls).toBe(3);
    calls = 0;
    const always = new GroupCommitQueue<number, number>(
      async () => {
        calls += 1;
        throw deadlock;
      },
      { maxBatch: 10, retry: { retryable: () => true, maxAttempts: 2 } },
    );
    await expect(always.submit(1)).rejects.toBe(deadlock);
    expect(calls).toBe(2);
  });

  it('does not run a batch again when its failure is not retryable', async () => {
    let calls = 0;
    const queue = new GroupCommitQueue<number, number>(
      async () => {
        calls += 1;
        throw new Error('constraint violated');
      },
      { maxBatch: 10, retry: { retryable: (error) => (error as { code?: string }).code === '40P01', maxAttempts: 3 } },
    );
    await expect(queue.submit(1)).rejects.toThrow('constraint violated');
    expect(calls).toBe(1);
  });

  it('lets a lone job wait the window for company, then commits what gathered as one batch', async () => {
    const batches: number[][] = [];
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        batches.push(jobs);
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 10, windowMs: 20 },
    );
    const first = queue.submit(1);
    await new Promise((resolve) => setTimeout(resolve, 2));
    const second = queue.submit(2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('commits a full batch at once without waiting the window', async () => {
    const batches: number[][] = [];
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        batches.push(jobs);
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 2, windowMs: 60_000 },
    );
    expect(await Promise.all(queue.submitAll([1, 2]))).toEqual([1, 2]);
    expect(batches).toEqual([[1, 2]]);
  });

  it('runs up to maxInFlight commits at once and never more', async () => {
    let running = 0;
    let most = 0;
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 1, maxInFlight: 2 },
    );
    expect(await Promise.all([1, 2, 3, 4, 5].map((job) => queue.submit(job)))).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });

  it('with overlapAt, starts an overlapping commit only for a full batch; smaller ones wait for the running writer', async () => {
    const { queue, batches, releases } = heldQueue({ maxBatch: 3, maxInFlight: 2, overlapAt: 3 });
    const results = [queue.submit(1), ...queue.submitAll([2, 3])];
    // One commit runs; two jobs wait: not worth a second commit yet.
    expect(batches).toEqual([[1]]);
    results.push(queue.submit(4));
    // A full batch queued: it goes out while the first commit still runs.
    expect(batches).toEqual([[1], [2, 3, 4]]);
    results.push(...queue.submitAll([5, 6]));
    expect(batches).toHaveLength(2);
    releases.shift()?.();
    await results[0];
    // The first writer is done while the second commits: two jobs are not worth overlapping.
    expect(batches).toHaveLength(2);
    releases.shift()?.();
    await results[3];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
    releases.shift()?.();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('starts a second writer at once when one submission holds more than a batch worth overlapping', async () => {
    const { queue, batches, releases } = heldQueue({ maxBatch: 2, maxInFlight: 2, overlapAt: 2, windowMs: 60_000 });
    const results = queue.submitAll([1, 2, 3, 4, 5]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    releases.shift()?.();
    await results[0];
    await new Promise((resolve) => setImmediate(resolve));
    // One job left and a commit still running: it waits for that writer.
    expect(batches).toHaveLength(2);
    releases.shift()?.();
    await results[2];
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.();
    expect(await Promise.all(results)).toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('idle() commits what waits in the window at once and resolves when everything is answered', async () => {
    const committed: number[] = [];
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        committed.push(...jobs);
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 10, windowMs: 60_000 },
    );
    const answers = queue.submitAll([1, 2]);
    await queue.idle();
    expect(committed).toEqual([1, 2]);
    expect(await Promise.all(answers)).toEqual([1, 2]);
  });

  it('runs a batch again on a deadlock by default, three tries in all', async () => {
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    let calls = 0;
    const queue = new GroupCommitQueue<number, number>(
      async () => {
        calls += 1;
        throw deadlock;
      },
      { maxBatch: 10 },
    );
    await expect(queue.submit(1)).rejects.toBe(deadlock);
    expect(calls).toBe(3);
  });

  it('commits a batch outside the Idempotency-Key claim of the request that started it, which keeps its own', async () => {
    const marker: AppliedMarker = { dataSource: {} as AppliedMarker['dataSource'], markApplied: async () => true };
    const requestClaim = (key: string): RunningClaim => new RunningClaim(marker, { caller: 'app:tp_a', key, claimId: key });
    const seenByBatches: Array<RunningClaim | undefined> = [];
    let release!: () => void;
    const firstBatchDone = new Promise<void>((resolve) => (release = resolve));
    const queue = new GroupCommitQueue<number, number>(
      async (jobs) => {
        seenByBatches.push(currentClaim());
        if (seenByBatches.length === 1) await firstBatchDone;
        return jobs.map((job): JobOutcome<number> => ({ ok: true, value: job }));
      },
      { maxBatch: 10, windowMs: 5 },
    );
    const first = requestClaim('k-1');
    const second = requestClaim('k-2');
    // The first request starts the writer (after the window, from its timer); the second's job
    // joins the next batch, which the writer flushes while still in the first's context.
    const answers = [
      runUnderClaim(first, async () => [await queue.submit(1), currentClaim()] as const),
      runUnderClaim(first, () => new Promise<void>((resolve) => setTimeout(resolve, 20))).then(() =>
        runUnderClaim(second, async () => [await queue.submit(2), currentClaim()] as const),
      ),
    ];
    setTimeout(release, 40);
    expect(await Promise.all(answers)).toEqual([
      [1, first],
      [2, second],
    ]);
    expect(seenByBatches).toEqual([undefined, undefined]);
  });
});
