import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { DeliveryWorker } from '../../deliveries/delivery-worker';
import { SubscribedApplications } from '../subscribed-applications';
import type { Subscription } from '../subscription';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { ownedSubscription } from './owned-subscription';

/**
 * Re-enables a disabled subscription and clears its failure count; deliveries that were waiting
 * while it was disabled resume. Idempotent on an enabled subscription. Answered once no process of
 * the region can still skip the application's events on an answer from before the commit
 * ({@link SubscribedApplications}).
 */
@Injectable()
export class EnableSubscription {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly subscribed: SubscribedApplications,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, applicationId: string, subscriptionId: string): Promise<Subscription> {
    // This process's answer for the application is renewed at this commit.
    const subscription = await this.subscribed.change([applicationId], () =>
      this.subscriptions.transaction(async (manager) => {
        const current = await ownedSubscription(this.subscriptions, principal, applicationId, subscriptionId, manager);
        return current.status === 'enabled' ? current : this.subscriptions.enable(manager, current.id, this.clock.now());
      }),
    );
    this.worker.kick();
    // Other processes may still skip the application's events on an answer read before the commit:
    // answer once those have expired, so every event written after this answer reaches the
    // subscription. Also when it was enabled already: an earlier call may have enabled it only now.
    await this.subscribed.settled(performance.now());
    return subscription;
  }
}
