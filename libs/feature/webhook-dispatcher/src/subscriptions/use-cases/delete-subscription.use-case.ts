import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { webhookError } from '../../webhooks.errors';
import { SubscriptionsRepository } from '../subscriptions.repository';
import { ownedApplicationId } from './owned-subscription';
import { isSubscriptionId } from '../../ids';

/** Deletes a subscription with its pending deliveries and its delivery log. */
@Injectable()
export class DeleteSubscription {
  constructor(private readonly subscriptions: SubscriptionsRepository) {}

  async execute(principal: Principal, applicationId: string, subscriptionId: string): Promise<void> {
    ownedApplicationId(principal, applicationId);
    const deleted =
      isSubscriptionId(subscriptionId) &&
      (await this.subscriptions.transaction((manager) => this.subscriptions.delete(manager, applicationId, subscriptionId)));
    if (!deleted)
      throw webhookError('webhook_subscription_not_found', 'Webhook subscription not found', { subscription_id: subscriptionId });
  }
}
