import { BUSINESS_METRICS, sampleNamesOf, type MetricDefinition } from './business-metrics';
import { Metrics } from './metrics';

const DEFINITIONS: MetricDefinition[] = Object.values(BUSINESS_METRICS);
/** Label names that would carry identifiers or tenant names (unbounded cardinality, personal data). */
const FORBIDDEN_LABEL = /(^|_)(id|ids|name|application|tenant|subject|email|agent|principal|url|key|token)$/;

describe('business metric definitions', () => {
  it.each(DEFINITIONS.map((d) => [d.name, d] as const))('%s: a valid Prometheus name, unit suffix and help', (_name, definition) => {
    expect(definition.name).toMatch(/^[a-z][a-z0-9_]*$/);
    if (definition.type === 'counter') expect(definition.name).toMatch(/_total$/);
    else expect(definition.name).not.toMatch(/_total$/);
    if (definition.type === 'histogram') expect(definition.name).toMatch(/_seconds$/);
    expect(definition.help.length).toBeGreaterThan(20);
  });

  it('are unique and never collide with the HTTP metrics or a histogram sample', () => {
    const samples = DEFINITIONS.flatMap(sampleNamesOf);
    expect(new Set(samples).size).toBe(samples.length);
    expect(samples).not.toEqual(expect.arrayContaining(['http_requests_total']));
  });

  it('use only closed, low-cardinality labels: no identifiers, names or addresses', () => {
    for (const definition of DEFINITIONS) {
      for (const label of definition.labelNames) {
        expect(label).toMatch(/^[a-z][a-z_]*$/);
        expect(label).not.toMatch(FORBIDDEN_LABEL);
        // Every process already sets these two on every series.
        expect(['service', 'region']).not.toContain(label);
      }
    }
  });

  it('give histograms strictly increasing buckets', () => {
    for (const definition of DEFINITIONS.filter((d) => d.type === 'histogram')) {
      const buckets = definition.buckets ?? [];
      expect(buckets.length).toBeGreaterThan(3);
      expect(buckets.every((bucket, i) => i === 0 || bucket > buckets[i - 1]!)).toBe(true);
    }
  });

  it('name the samples a histogram exposes', () => {
    expect(sampleNamesOf(BUSINESS_METRICS.webhookLatency)).toEqual([
      'webhook_delivery_duration_seconds_bucket',
      'webhook_delivery_duration_seconds_sum',
      'webhook_delivery_duration_seconds_count',
    ]);
    expect(sampleNamesOf(BUSINESS_METRICS.grantDecisions)).toEqual(['oap_grant_decisions_total']);
  });
});

describe('Metrics registers business metrics once per process', () => {
  const newMetrics = () => new Metrics({ service: 'svc', region: 'us' });

  it('returns the same counter and histogram on repeated registration, with the definition help and labels', async () => {
    const metrics = newMetrics();
    const counter = metrics.counterOf(BUSINESS_METRICS.grantDecisions);
    expect(metrics.counterOf(BUSINESS_METRICS.grantDecisions)).toBe(counter);
    expect(metrics.histogramOf(BUSINESS_METRICS.webhookLatency)).toBe(metrics.histogramOf(BUSINESS_METRICS.webhookLatency));
    counter.inc({ outcome: 'deny', cascade_step: '7' });
    metrics.histogramOf(BUSINESS_METRICS.webhookLatency).observe({ outcome: 'success' }, 0.03);
    const { body } = await metrics.render();
    expect(body).toContain(`# HELP oap_grant_decisions_total ${BUSINESS_METRICS.grantDecisions.help}`);
    expect(body).toMatch(/^oap_grant_decisions_total\{outcome="deny",cascade_step="7",service="svc",region="us"\} 1$/m);
    expect(body).toMatch(/^webhook_delivery_duration_seconds_bucket\{le="0.05",service="svc",region="us",outcome="success"\} 1$/m);
    expect(body).toMatch(/^webhook_delivery_duration_seconds_bucket\{le="0.025",service="svc",region="us",outcome="success"\} 0$/m);
  });

  it('computes a gauge at scrape time; a second registration keeps the first reader', async () => {
    const metrics = newMetrics();
    let open = 3;
    metrics.gaugeOf(BUSINESS_METRICS.escalationsOpen, (set) => set(open));
    metrics.gaugeOf(BUSINESS_METRICS.escalationsOpen, (set) => set(99));
    expect((await metrics.render()).body).toMatch(/^oap_escalations_open\{service="svc",region="us"\} 3$/m);
    open = 1;
    expect((await metrics.render()).body).toMatch(/^oap_escalations_open\{service="svc",region="us"\} 1$/m);
  });

  it('drops a labelled series no longer read, and keeps the previous samples when a read fails', async () => {
    const metrics = newMetrics();
    let read: () => Array<[number, string]> = () => [
      [4, 'oap'],
      [0, 'audit'],
    ];
    metrics.gaugeOf(BUSINESS_METRICS.outboxUnpublished, (set) => {
      for (const [value, schema] of read()) set(value, { schema });
    });
    expect((await metrics.render()).body).toMatch(/^outbox_unpublished_events\{schema="oap",service="svc",region="us"\} 4$/m);
    read = () => [[2, 'oap']];
    let body = (await metrics.render()).body;
    expect(body).toMatch(/^outbox_unpublished_events\{schema="oap",service="svc",region="us"\} 2$/m);
    expect(body).not.toContain('schema="audit"');
    read = () => {
      throw new Error('database unreachable');
    };
    body = (await metrics.render()).body;
    expect(body).toMatch(/^outbox_unpublished_events\{schema="oap",service="svc",region="us"\} 2$/m);
    expect(body).toContain('http_requests_total');
  });
});
