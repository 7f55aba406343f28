import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { newSubscriptionId } from '../../ids';
import { WebhookDispatcherConfig } from '../../webhook-dispatcher.config';
import { isSubscribableEventType } from '../../webhook-events';
import { webhookError } from '../../webhooks.errors';
import { DEFAULT_SIGNATURE_FORMATS, normalizeSignatureFormats } from '../signature-formats';
import { SubscribedApplications } from '../subscribed-applications';
import type { Subscription } from '../subscription';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { newWebhookSecret } from '../webhook-secret';
import { checkWebhookTarget, checkWebhookUrl } from '../webhook-url';
import { ownedApplicationId } from './owned-subscription';

/**
 * Creates a subscription; its signing secret is returned here once and stored only encrypted. The
 * answer waits until no process of the region can still skip the application's events on an answer
 * from before the commit ({@link SubscribedApplications}), at most `MAX_AGE_MS` (1 s).
 */
@Injectable()
export class CreateSubscription {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly subscribed: SubscribedApplications,
    private readonly kek: KeyEncryption,
    private readonly clock: Clock,
    private readonly config: WebhookDispatcherConfig,
  ) {}

  async execute(
    principal: Principal,
    applicationId: string,
    input: { url: string; events: readonly string[]; signatureFormats?: readonly string[] },
  ): Promise<{ subscription: Subscription; secret: string }> {
    ownedApplicationId(principal, applicationId);
    const url = checkWebhookUrl(input.url, principal.environment);
    await checkWebhookTarget(url, principal.environment);
    const unknown = input.events.find((e) => !isSubscribableEventType(e));
    if (unknown !== undefined)
      throw webhookError('webhook_event_unknown', `Unknown webhook event "${unknown}"`, { field: 'events', event: unknown });
    const events = [...new Set(input.events)];
    const id = newSubscriptionId();
    const secret = newWebhookSecret();
    const now = this.clock.now();
    const subscription: Subscription = {
      id,
      applicationId,
      url,
      environment: principal.environment,
      events,
      signatureFormats: normalizeSignatureFormats(input.signatureFormats ?? DEFAULT_SIGNATURE_FORMATS),
      status: 'enabled',
      disabledReason: null,
      disabledAt: null,
      consecutiveFailures: 0,
      // aad = subscription id: a ciphertext copied onto another subscription's row does not decrypt.
      secretEnc: this.kek.encrypt(Buffer.from(secret, 'utf8'), id),
      previousSecretEnc: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    };
    // This process's answer for the application is renewed at this commit.
    await this.subscribed.change([applicationId], () =>
      this.subscriptions.transaction(async (manager) => {
        await this.subscriptions.lockApplication(manager, applicationId);
        if ((await this.subscriptions.countForApplication(manager, applicationId)) >= this.config.WEBHOOK_MAX_SUBSCRIPTIONS) {
          throw webhookError('webhook_subscription_limit_reached', 'The application has the maximum number of webhook subscriptions', {
            limit: this.config.WEBHOOK_MAX_SUBSCRIPTIONS,
          });
        }
        await this.subscriptions.insert(manager, subscription);
      }),
    );
    // Other processes may still skip the application's events on an answer read before the commit:
    // answer once those have expired, so every event written after this answer reaches the subscription.
    await this.subscribed.settled(performance.now());
    return { subscription, secret };
  }
}
