import { BUSINESS_METRICS, type Metrics } from '@svc/telemetry';
import type { Counter, Histogram } from 'prom-client';
import type { AttemptResult } from './retry-schedule';

/** How an attempt ended, as the `outcome` label of the delivery metrics. */
export type AttemptOutcome = 'success' | 'http_error' | 'network_error';

export function attemptOutcomeOf(result: AttemptResult): AttemptOutcome {
  if (result.statusCode === undefined) return 'network_error';
  return result.statusCode >= 200 && result.statusCode < 300 ? 'success' : 'http_error';
}

/** Counts each sent attempt and observes its latency, by outcome. */
export class DeliveryMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly latency: Histogram<'outcome'>;

  constructor(metrics: Metrics) {
    this.attempts = metrics.counterOf(BUSINESS_METRICS.webhookAttempts);
    this.latency = metrics.histogramOf(BUSINESS_METRICS.webhookLatency);
  }

  observe(result: AttemptResult, durationMs: number): void {
    const outcome = attemptOutcomeOf(result);
    this.attempts.inc({ outcome });
    this.latency.observe({ outcome }, durationMs / 1000);
  }
}
