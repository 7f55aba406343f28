import { Injectable } from '@nestjs/common';
import { Metrics } from '@svc/telemetry';
import type { Counter } from 'prom-client';

/**
 * Prometheus name of the spec's counter `trust_surface.postmessage_dropped_total`: Prometheus
 * metric names cannot contain dots, so each dot becomes an underscore.
 */
export const POSTMESSAGE_DROPPED_METRIC = 'trust_surface_postmessage_dropped_total';

/** Reasons a frame drops a message; the spec names one. */
export type DropReason = 'origin_missing';

/** Counts postMessage emissions a decision frame could not deliver (no allowed target origin). */
@Injectable()
export class PostMessageDrops {
  private readonly counter: Counter<'reason'>;

  constructor(metrics: Metrics) {
    this.counter = metrics.counter(POSTMESSAGE_DROPPED_METRIC, 'postMessage v2 messages a decision frame dropped for want of an allowed target origin, by reason.', ['reason']);
  }

  record(reason: DropReason, count = 1): void {
    this.counter.inc({ reason }, count);
  }
}
