import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { BUSINESS_METRICS, Metrics } from '@svc/telemetry';
import { SubscriptionsRepository } from './subscriptions.repository';

/** `webhook_endpoints_disabled` on /metrics, counted at scrape time from the disabled subscriptions. */
@Injectable()
export class SubscriptionsGauge implements OnApplicationBootstrap {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly metrics: Metrics,
  ) {}

  onApplicationBootstrap(): void {
    this.metrics.gaugeOf(BUSINESS_METRICS.webhookEndpointsDisabled, async (set) => set(await this.subscriptions.countDisabled()));
  }
}
