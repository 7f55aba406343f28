import {
  DEFAULT_THRESHOLDS,
  metricValue,
  percentile,
  rssSlopeMiBPerMinute,
  serverSample,
  summarizeMinute,
  verdict,
  type MinuteSummary,
  type RequestKind,
  type ServerSample,
} from './stats';

const MiB = 1_048_576;

const shots = (latencies: number[], errors = 0) => ({ latencies, errors });
const quiet = { grants: shots([]), records: shots([]), sessions: shots([]), imports: shots([]) };

function minute(
  n: number,
  p99: number,
  overrides: Partial<Omit<MinuteSummary, 'minute' | 'kinds'>> & { errors?: number } = {},
): MinuteSummary {
  const kind = { requests: 100, errors: overrides.errors ?? 0, p50: p99 / 2, p99 };
  return {
    minute: n,
    kinds: { grants: kind, records: kind, sessions: kind, imports: kind },
    rssBytes: overrides.rssBytes ?? 300 * MiB,
    lagP99Ms: overrides.lagP99Ms ?? 20,
    outboxMax: overrides.outboxMax ?? 10,
    consumerLagMax: overrides.consumerLagMax ?? 50,
  };
}

const facts = { shed: 0, importRowsFailed: 0, drained: true, webhooks: { expected: 100, delivered: 100, duplicates: 0 } };
const failed = (checks: ReturnType<typeof verdict>) => checks.filter((c) => !c.pass).map((c) => c.name);

describe('percentile', () => {
  it('is the nearest rank, NaN without values', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect([percentile(values, 50), percentile(values, 99), percentile(values, 100), percentile(values, 0)]).toEqual([50, 99, 100, 1]);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });

  it('leaves its input unsorted', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('metricValue and serverSample', () => {
  const text = [
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    'process_resident_memory_bytes{service="soak",region="us"} 314572800',
    'nodejs_eventloop_lag_p99_seconds{service="soak",region="us"} 0.0125',
    'outbox_unpublished_events{service="soak",region="us",schema="records"} 12',
    'outbox_unpublished_events{service="soak",region="us",schema="oap"} 3',
    'outbox_unpublished_events_total{service="soak"} 999',
    'bus_consumer_lag_messages{durable="a"} 40',
    'bus_consumer_lag_messages{durable="b"} 7',
    'plain_metric 5 1700000000000',
  ].join('\n');

  it('sums every label set of the exact name (or takes the max), ignoring comments and longer names', () => {
    expect(metricValue(text, 'outbox_unpublished_events')).toBe(15);
    expect(metricValue(text, 'bus_consumer_lag_messages', 'max')).toBe(40);
    expect(metricValue(text, 'plain_metric')).toBe(5);
    expect(metricValue(text, 'absent_metric')).toBeUndefined();
  });

  it('reads RSS, event-loop lag in ms, outbox backlog and the largest consumer lag', () => {
    expect(serverSample(text)).toEqual({ rssBytes: 300 * MiB, lagP99Ms: 12.5, outbox: 15, consumerLag: 40 });
  });

  it('reads a backlog as 0 when the metric has no series yet', () => {
    expect(serverSample('process_resident_memory_bytes 1\nnodejs_eventloop_lag_p99_seconds 0.01')).toEqual({
      rssBytes: 1,
      lagP99Ms: 10,
      outbox: 0,
      consumerLag: 0,
    });
  });
});

describe('summarizeMinute', () => {
  it('counts requests with errors, percentiles of the successes, last RSS, median lag window, backlog maxima', () => {
    const samples: ServerSample[] = [
      { rssBytes: 100, lagP99Ms: 30, outbox: 5, consumerLag: 1 },
      { rssBytes: 110, lagP99Ms: 10, outbox: 50, consumerLag: 9 },
      { rssBytes: 120, lagP99Ms: 20, outbox: 0, consumerLag: 2 },
    ];
    const latencies = Array.from({ length: 200 }, (_, i) => i + 1);
    const summary = summarizeMinute(
      3,
      { ...quiet, grants: shots(latencies, 2) } as Record<RequestKind, { latencies: number[]; errors: number }>,
      samples,
    );
    expect(summary).toMatchObject({ minute: 3, rssBytes: 120, lagP99Ms: 20, outboxMax: 50, consumerLagMax: 9 });
    expect(summary.kinds.grants).toEqual({ requests: 202, errors: 2, p50: 100, p99: 198 });
    expect(summary.kinds.sessions).toEqual({ requests: 0, errors: 0, p50: NaN, p99: NaN });
  });
});

describe('verdict', () => {
  it('passes a steady run and prints each threshold', () => {
    const checks = verdict([minute(1, 20), minute(2, 25), minute(3, 34)], facts);
    expect(failed(checks)).toEqual([]);
    expect(checks.map((c) => c.name)).toEqual([
      'errors',
      'p99 grants',
      'p99 records',
      'p99 sessions',
      'RSS flat',
      'event-loop lag flat',
      'backlog bounded',
      'webhooks delivered',
    ]);
    expect(checks.find((c) => c.name === 'p99 grants')!.detail).toBe('minute 3 34.0 ms vs minute 1 20.0 ms (limit 1.5× + 5 ms = 35.0 ms)');
  });

  it('fails on any error, shed request or failed import row', () => {
    expect(failed(verdict([minute(1, 20), minute(2, 20, { errors: 1 })], facts))).toEqual(['errors']);
    expect(failed(verdict([minute(1, 20)], { ...facts, shed: 1 }))).toEqual(['errors']);
    expect(failed(verdict([minute(1, 20)], { ...facts, importRowsFailed: 3 }))).toEqual(['errors']);
  });

  it('fails when the last p99 exceeds 1.5× minute 1 + 5 ms, or a p99 is missing', () => {
    expect(failed(verdict([minute(1, 20), minute(10, 35.1)], facts))).toEqual(['p99 grants', 'p99 records', 'p99 sessions']);
    expect(failed(verdict([minute(1, 20), minute(10, NaN)], facts))).toEqual(['p99 grants', 'p99 records', 'p99 sessions']);
  });

  it('fails when RSS grows by more than 15% + 32 MiB or the event-loop lag more than 2× + 10 ms', () => {
    expect(failed(verdict([minute(1, 20, { rssBytes: 200 * MiB }), minute(10, 20, { rssBytes: 262 * MiB })], facts))).toEqual([]);
    expect(failed(verdict([minute(1, 20, { rssBytes: 200 * MiB }), minute(10, 20, { rssBytes: 263 * MiB })], facts))).toEqual(['RSS flat']);
    expect(failed(verdict([minute(1, 20, { lagP99Ms: 20 }), minute(10, 20, { lagP99Ms: 51 })], facts))).toEqual(['event-loop lag flat']);
  });

  it('fails when a backlog passes its limit at any minute or did not drain', () => {
    expect(failed(verdict([minute(1, 20), minute(2, 20, { outboxMax: DEFAULT_THRESHOLDS.maxOutbox + 1 }), minute(3, 20)], facts))).toEqual([
      'backlog bounded',
    ]);
    expect(failed(verdict([minute(1, 20, { consumerLagMax: DEFAULT_THRESHOLDS.maxConsumerLag + 1 })], facts))).toEqual(['backlog bounded']);
    expect(failed(verdict([minute(1, 20)], { ...facts, drained: false }))).toEqual(['backlog bounded']);
  });

  it('fails when a record webhook is missing or one arrived twice', () => {
    expect(failed(verdict([minute(1, 20)], { ...facts, webhooks: { expected: 100, delivered: 101, duplicates: 0 } }))).toEqual([]);
    expect(failed(verdict([minute(1, 20)], { ...facts, webhooks: { expected: 100, delivered: 99, duplicates: 0 } }))).toEqual([
      'webhooks delivered',
    ]);
    expect(failed(verdict([minute(1, 20)], { ...facts, webhooks: { expected: 100, delivered: 100, duplicates: 1 } }))).toEqual([
      'webhooks delivered',
    ]);
  });

  it('fails without a completed minute', () => {
    expect(failed(verdict([], facts))).toEqual(['minutes']);
  });
});

describe('rssSlopeMiBPerMinute', () => {
  it('is the least-squares slope after minute 1, NaN with fewer than two such minutes', () => {
    const minutes = [1, 2, 3, 4].map((n) => minute(n, 20, { rssBytes: (n === 1 ? 500 : 300 + 2 * n) * MiB }));
    expect(rssSlopeMiBPerMinute(minutes)).toBeCloseTo(2);
    expect(rssSlopeMiBPerMinute(minutes.slice(0, 2))).toBeNaN();
  });
});
