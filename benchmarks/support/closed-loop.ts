/** One request of a closed-loop load: its HTTP status and latency. */
export interface Shot {
  status: number;
  ms: number;
}

/** What a closed-loop run measured. */
export interface ClosedLoopResult {
  /** Successful requests per second. */
  rate: number;
  /** Latency percentile of the successful requests, ms (NaN when none succeeded). */
  percentile: (p: number) => number;
  /** Count of answers per HTTP status. */
  statuses: Map<number, number>;
}

/**
 * Closed-loop load: `concurrency` callers each fire the next request as soon as the previous one
 * answered, for `seconds`. Only answers with `successStatus` count towards the rate and latencies.
 */
export async function runClosedLoop(options: {
  concurrency: number;
  seconds: number;
  successStatus: number;
  fire: () => Promise<Shot>;
}): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  const deadline = performance.now() + options.seconds * 1_000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const { status, ms } = await options.fire();
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === options.successStatus) latencies.push(ms);
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1_000;
  latencies.sort((a, b) => a - b);
  return {
    rate: latencies.length / elapsed,
    percentile: (p) => latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? NaN,
    statuses,
  };
}

/** `201=7155 400=2`: the statuses of a run for the report. */
export function statusLine(statuses: Map<number, number>): string {
  return [...statuses].map(([status, count]) => `${status}=${count}`).join(' ');
}
