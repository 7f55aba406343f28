import type { Principal } from '@svc/auth';
import type { EntityManager } from 'typeorm';
import { isSubscriptionId } from '../../ids';
import { webhookError } from '../../webhooks.errors';
import type { Subscription } from '../subscription';
import type { SubscriptionsRepository } from '../subscriptions.repository';

/**
 * The caller's application id from the path. Another application's id answers exactly like an
 * unknown one (404), so ids cannot be probed.
 */
export function ownedApplicationId(principal: Principal, applicationId: string): string {
  if (principal.applicationId !== applicationId)
    throw webhookError('application_not_found', 'Application not found', { application_id: applicationId });
  return applicationId;
}

/** Loads a subscription of the caller's application; malformed, unknown and foreign ids all answer 404. */
export async function ownedSubscription(
  repo: SubscriptionsRepository,
  principal: Principal,
  applicationId: string,
  subscriptionId: string,
  manager?: EntityManager,
): Promise<Subscription> {
  ownedApplicationId(principal, applicationId);
  const found = isSubscriptionId(subscriptionId)
    ? await repo.find(applicationId, subscriptionId, manager, manager !== undefined)
    : undefined;
  if (!found) throw webhookError('webhook_subscription_not_found', 'Webhook subscription not found', { subscription_id: subscriptionId });
  return found;
}
