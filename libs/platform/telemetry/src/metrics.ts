import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { MetricDefinition } from './business-metrics';

/** Reads a gauge's current values at scrape time; `set` is called once per series observed. */
export type GaugeReader<L extends string> = (set: (value: number, labels?: Partial<Record<L, string>>) => void) => Promise<void> | void;

/** Process-wide Prometheus registry with HTTP metrics; services add their own instruments to it. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;

  constructor(labels: { service: string; region: string }) {
    this.registry.setDefaultLabels(labels);
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency in seconds.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
  }

  /** A counter registered once per name (repeated calls return the same instrument). */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const existing = this.registry.getSingleMetric(name);
    if (existing) return existing as Counter<L>;
    return new Counter({ name, help, labelNames: [...labelNames], registers: [this.registry] });
  }

  /** The counter of a business metric definition, registered on first use. */
  counterOf<L extends string>(definition: MetricDefinition<L>): Counter<L> {
    return this.counter(definition.name, definition.help, definition.labelNames);
  }

  /** The histogram of a business metric definition, registered on first use. */
  histogramOf<L extends string>(definition: MetricDefinition<L>): Histogram<L> {
    const existing = this.registry.getSingleMetric(definition.name);
    if (existing) return existing as Histogram<L>;
    return new Histogram({
      name: definition.name,
      help: definition.help,
      labelNames: [...definition.labelNames],
      ...(definition.buckets ? { buckets: [...definition.buckets] } : {}),
      registers: [this.registry],
    });
  }

  /**
   * A gauge computed at scrape time by `read`; registered once per process (a second call keeps the
   * first reader). Series are rebuilt on every scrape, so a label value no longer read disappears.
   * A reader that throws keeps the previous scrape's samples rather than failing the scrape.
   */
  gaugeOf<L extends string>(definition: MetricDefinition<L>, read: GaugeReader<L>): Gauge<L> {
    const existing = this.registry.getSingleMetric(definition.name);
    if (existing) return existing as Gauge<L>;
    return new Gauge({
      name: definition.name,
      help: definition.help,
      labelNames: [...definition.labelNames],
      registers: [this.registry],
      async collect() {
        const samples: Array<{ value: number; labels?: Partial<Record<L, string>> }> = [];
        try {
          await read((value, labels) => samples.push({ value, labels }));
        } catch {
          return;
        }
        this.reset();
        for (const { value, labels } of samples) {
          if (labels) this.set(labels, value);
          else this.set(value);
        }
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
