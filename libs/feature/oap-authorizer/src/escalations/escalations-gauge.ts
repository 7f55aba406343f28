import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { BUSINESS_METRICS, Metrics } from '@svc/telemetry';
import { EscalationsRepository } from './escalations.repository';

/** `oap_escalations_open` on /metrics, counted at scrape time from the pending escalations. */
@Injectable()
export class EscalationsGauge implements OnApplicationBootstrap {
  constructor(
    private readonly escalations: EscalationsRepository,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.metrics.gaugeOf(BUSINESS_METRICS.escalationsOpen, async (set) => set(await this.escalations.countOpen()));
  }
}
