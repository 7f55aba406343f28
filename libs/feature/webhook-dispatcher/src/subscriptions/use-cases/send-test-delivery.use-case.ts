import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DeliveriesRepository } from '../../deliveries/deliveries.repository';
import type { NewDelivery } from '../../deliveries/delivery';
import { DeliveryWorker } from '../../deliveries/delivery-worker';
import { webhookBody } from '../../deliveries/webhook-body';
import { newDeliveryId } from '../../ids';
import { TEST_EVENT_TYPE } from '../../webhook-events';
import type { TestWebhookData } from '../../intake/webhook-data.response';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { ownedSubscription } from './owned-subscription';

/**
 * Queues one signed `webhook.test` delivery to the subscription's endpoint, also when it is
 * disabled (to check an endpoint before re-enabling it). A test delivery gets a single attempt,
 * appears in the delivery log, and never counts toward (nor resets) auto-disable.
 */
@Injectable()
export class SendTestDelivery {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, applicationId: string, subscriptionId: string): Promise<NewDelivery & { createdAt: Date }> {
    const subscription = await ownedSubscription(this.subscriptions, principal, applicationId, subscriptionId);
    const now = this.clock.now();
    const eventId = randomUUID();
    const delivery: NewDelivery = {
      id: newDeliveryId(),
      subscriptionId: subscription.id,
      applicationId,
      eventId,
      eventType: TEST_EVENT_TYPE,
      isTest: true,
      payload: webhookBody({
        id: eventId,
        type: TEST_EVENT_TYPE,
        applicationId,
        occurredAt: now,
        data: { subscription_id: subscription.id, message: 'Test delivery requested through the API' } satisfies TestWebhookData,
      }),
      maxAttempts: 1,
    };
    await this.subscriptions.transaction((manager) => this.deliveries.enqueue(manager, [delivery], now));
    this.worker.kick();
    return { ...delivery, createdAt: now };
  }
}
