import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import type { Subscription } from '../subscription';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { PREVIOUS_SECRET_TTL_MS, newWebhookSecret } from '../webhook-secret';
import { ownedSubscription } from './owned-subscription';

/**
 * Replaces the signing secret (returned once). For one day the replaced secret still signs too:
 * deliveries carry `v1=<new> v1=<old>`, so receivers can switch at their own pace. Rotating again
 * within that day retires the older secret at once: only the one just replaced overlaps.
 */
@Injectable()
export class RotateSecret {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Principal,
    applicationId: string,
    subscriptionId: string,
  ): Promise<{ subscription: Subscription; secret: string }> {
    return this.subscriptions.transaction(async (manager) => {
      const current = await ownedSubscription(this.subscriptions, principal, applicationId, subscriptionId, manager);
      const now = this.clock.now();
      const secret = newWebhookSecret();
      const previous = this.kek.decrypt(current.secretEnc, current.id);
      const subscription = await this.subscriptions.rotateSecret(
        manager,
        current.id,
        this.kek.encrypt(Buffer.from(secret, 'utf8'), current.id),
        this.kek.encrypt(previous, current.id),
        new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
        now,
      );
      return { subscription, secret };
    });
  }
}
