/**
 * Pure statistics of the soak: percentiles, the Prometheus samples it reads from the server's
 * /metrics, the per-minute summary and the final verdict with its thresholds.
 */

/** Request kinds the soak offers at a fixed rate; their p99 is held to the stability rule. */
export const REQUEST_KINDS = ['grants', 'records', 'sessions', 'imports'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** The p-th percentile (nearest rank, p in 0..100) of values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The median of values; NaN when there are none. */
export const median = (values: readonly number[]): number => percentile(values, 50);

/**
 * Sum of the samples of one metric in Prometheus text exposition (every label set), or undefined
 * when the metric has no sample. `max` instead of the sum with `aggregate: 'max'`.
 */
export function metricValue(text: string, name: string, aggregate: 'sum' | 'max' = 'sum'): number | undefined {
  let result: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== '{' && rest[0] !== ' ') continue;
    const value = Number(
      rest
        .slice(rest[0] === '{' ? rest.lastIndexOf('}') + 1 : 0)
        .trim()
        .split(' ')[0],
    );
    if (!Number.isFinite(value)) continue;
    result = result === undefined ? value : aggregate === 'sum' ? result + value : Math.max(result, value);
  }
  return result;
}

/** One scrape of the server's /metrics during the soak. */
export interface ServerSample {
  /** Resident set size of the server process, bytes (`process_resident_memory_bytes`). */
  rssBytes: number;
  /** p99 event-loop delay since the previous scrape, ms (`nodejs_eventloop_lag_p99_seconds`). */
  lagP99Ms: number;
  /** Unpublished outbox rows, every service schema (`outbox_unpublished_events`). */
  outbox: number;
  /** Messages not yet acknowledged, largest durable consumer (`bus_consumer_lag_messages`). */
  consumerLag: number;
}

/** The soak's figures of a scrape of /metrics. */
export function serverSample(text: string): ServerSample {
  return {
    rssBytes: metricValue(text, 'process_resident_memory_bytes') ?? NaN,
    lagP99Ms: (metricValue(text, 'nodejs_eventloop_lag_p99_seconds') ?? NaN) * 1_000,
    outbox: metricValue(text, 'outbox_unpublished_events') ?? 0,
    consumerLag: metricValue(text, 'bus_consumer_lag_messages', 'max') ?? 0,
  };
}

/** What one kind of request did in one minute. */
export interface KindMinute {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

/** One minute of the soak as printed and judged. */
export interface MinuteSummary {
  minute: number;
  kinds: Record<RequestKind, KindMinute>;
  /** Server RSS at the end of the minute, bytes. */
  rssBytes: number;
  /** Event-loop delay p99 of the minute: the median of its scrape windows' p99, ms. */
  lagP99Ms: number;
  /** Largest outbox backlog and consumer lag sampled in the minute. */
  outboxMax: number;
  consumerLagMax: number;
}

/** Per-kind latencies (ms) and error count of a minute, and the server samples taken during it. */
export function summarizeMinute(
  minute: number,
  shots: Record<RequestKind, { latencies: number[]; errors: number }>,
  samples: readonly ServerSample[],
): MinuteSummary {
  const kinds = {} as Record<RequestKind, KindMinute>;
  for (const kind of REQUEST_KINDS) {
    const { latencies, errors } = shots[kind];
    kinds[kind] = { requests: latencies.length + errors, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  }
  return {
    minute,
    kinds,
    rssBytes: samples.at(-1)?.rssBytes ?? NaN,
    lagP99Ms: median(samples.map((s) => s.lagP99Ms)),
    outboxMax: Math.max(0, ...samples.map((s) => s.outbox)),
    consumerLagMax: Math.max(0, ...samples.map((s) => s.consumerLag)),
  };
}

/** The pass/fail thresholds of the verdict (printed with it). */
export interface Thresholds {
  /** p99 of the last minute ≤ p99Factor × p99 of minute 1 + p99SlackMs, for each kind in p99Kinds. */
  p99Factor: number;
  p99SlackMs: number;
  p99Kinds: readonly RequestKind[];
  /** RSS at the end of the last minute ≤ RSS at the end of minute 1 × (1 + rssGrowthFraction) + rssSlackBytes. */
  rssGrowthFraction: number;
  rssSlackBytes: number;
  /** Event-loop lag p99 of the last minute ≤ lagFactor × minute 1 + lagSlackMs. */
  lagFactor: number;
  lagSlackMs: number;
  /** Every sample of the outbox backlog / consumer lag at most these. */
  maxOutbox: number;
  maxConsumerLag: number;
}

export const DEFAULT_THRESHOLDS: Thresholds = {
  p99Factor: 1.5,
  p99SlackMs: 5,
  p99Kinds: ['grants', 'records', 'sessions'],
  rssGrowthFraction: 0.15,
  rssSlackBytes: 32 * 1_048_576,
  lagFactor: 2,
  lagSlackMs: 10,
  maxOutbox: 5_000,
  maxConsumerLag: 10_000,
};

/** Extra facts the verdict needs beyond the minutes. */
export interface RunFacts {
  /** Requests the client could not start because too many were in flight (load not offered). */
  shed: number;
  /** Import rows the server reported failed. */
  importRowsFailed: number;
  /** Outbox and consumer lag back to the drain limit after the load stopped (undefined: not measured). */
  drained: boolean | undefined;
  /** consent.granted webhooks of the soak's records: records written, distinct events received, repeats of an event. */
  webhooks: { expected: number; delivered: number; duplicates: number };
}

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const mib = (bytes: number): string => `${(bytes / 1_048_576).toFixed(1)} MiB`;

/** The checks of the verdict, each with its measured figures and threshold. */
export function verdict(minutes: readonly MinuteSummary[], facts: RunFacts, t: Thresholds = DEFAULT_THRESHOLDS): Check[] {
  if (minutes.length === 0) return [{ name: 'minutes', pass: false, detail: 'no minute completed' }];
  const first = minutes[0]!;
  const last = minutes.at(-1)!;
  const checks: Check[] = [];
  const errors = minutes.reduce((sum, m) => sum + REQUEST_KINDS.reduce((s, k) => s + m.kinds[k].errors, 0), 0);
  checks.push({
    name: 'errors',
    pass: errors === 0 && facts.shed === 0 && facts.importRowsFailed === 0,
    detail: `${errors} failed requests, ${facts.shed} shed, ${facts.importRowsFailed} failed import rows (must all be 0)`,
  });
  for (const kind of t.p99Kinds) {
    const a = first.kinds[kind].p99;
    const b = last.kinds[kind].p99;
    const limit = t.p99Factor * a + t.p99SlackMs;
    checks.push({
      name: `p99 ${kind}`,
      pass: Number.isFinite(a) && Number.isFinite(b) && b <= limit,
      detail: `minute ${last.minute} ${f1(b)} ms vs minute 1 ${f1(a)} ms (limit ${t.p99Factor}× + ${t.p99SlackMs} ms = ${f1(limit)} ms)`,
    });
  }
  const rssLimit = first.rssBytes * (1 + t.rssGrowthFraction) + t.rssSlackBytes;
  checks.push({
    name: 'RSS flat',
    pass: last.rssBytes <= rssLimit,
    detail: `minute ${last.minute} ${mib(last.rssBytes)} vs minute 1 ${mib(first.rssBytes)} (limit +${t.rssGrowthFraction * 100}% + ${mib(t.rssSlackBytes)} = ${mib(rssLimit)})`,
  });
  const lagLimit = t.lagFactor * first.lagP99Ms + t.lagSlackMs;
  checks.push({
    name: 'event-loop lag flat',
    pass: last.lagP99Ms <= lagLimit,
    detail: `p99 minute ${last.minute} ${f1(last.lagP99Ms)} ms vs minute 1 ${f1(first.lagP99Ms)} ms (limit ${t.lagFactor}× + ${t.lagSlackMs} ms = ${f1(lagLimit)} ms)`,
  });
  const outboxMax = Math.max(...minutes.map((m) => m.outboxMax));
  const lagMax = Math.max(...minutes.map((m) => m.consumerLagMax));
  const drained =
    facts.drained === undefined ? '' : facts.drained ? '; drained after the load stopped' : '; NOT drained after the load stopped';
  checks.push({
    name: 'backlog bounded',
    pass: outboxMax <= t.maxOutbox && lagMax <= t.maxConsumerLag && facts.drained !== false,
    detail: `outbox max ${outboxMax} (limit ${t.maxOutbox}), consumer lag max ${lagMax} (limit ${t.maxConsumerLag})${drained}`,
  });
  const { expected, delivered, duplicates } = facts.webhooks;
  checks.push({
    name: 'webhooks delivered',
    pass: delivered >= expected && duplicates === 0,
    detail: `${delivered} distinct consent.granted events of ${expected} records received, ${duplicates} received twice (all, none)`,
  });
  return checks;
}

/** RSS trend over the minutes after the first, MiB per minute (least squares); NaN with fewer than 2 points. */
export function rssSlopeMiBPerMinute(minutes: readonly MinuteSummary[]): number {
  const points = minutes.slice(1).map((m) => [m.minute, m.rssBytes / 1_048_576] as const);
  if (points.length < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length;
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}
