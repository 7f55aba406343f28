import { Injectable } from '@nestjs/common';
import { BUSINESS_METRICS, Metrics } from '@svc/telemetry';
import type { Counter } from 'prom-client';

/**
 * Prometheus name of the spec's counter `trust_surface.postmessage_dropped_total`: Prometheus
 * metric names cannot contain dots, so each dot becomes an underscore.
 */
export const POSTMESSAGE_DROPPED_METRIC = BUSINESS_METRICS.postMessageDropped.name;

/** Reasons a frame drops a message; the spec names one. */
export type DropReason = 'origin_missing';

/** Counts postMessage emissions a decision frame could not deliver (no allowed target origin). */
@Injectable()
export class PostMessageDrops {
  private readonly counter: Counter<'reason'>;

  constructor(metrics: Metrics) {
    this.counter = metrics.counterOf(BUSINESS_METRICS.postMessageDropped);
  }

  record(reason: DropReason, count = 1): void {
    this.counter.inc({ reason }, count);
  }
}
