import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DeliveryWorker } from '../../deliveries/delivery-worker';
import type { Subscription } from '../subscription';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { ownedSubscription } from './owned-subscription';

/**
 * Re-enables a disabled subscription and clears its failure count; deliveries that were waiting
 * while it was disabled resume. Idempotent on an enabled subscription.
 */
@Injectable()
export class EnableSubscription {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, applicationId: string, subscriptionId: string): Promise<Subscription> {
    const subscription = await this.subscriptions.transaction(async (manager) => {
      const current = await ownedSubscription(this.subscriptions, principal, applicationId, subscriptionId, manager);
      return current.status === 'enabled' ? current : this.subscriptions.enable(manager, current.id, this.clock.now());
    });
    this.worker.kick();
    return subscription;
  }
}
