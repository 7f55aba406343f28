import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { AccountAccess, CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page, ApiResponseOf } from '@svc/server';
import { WebhookDeliveryResponse } from '../deliveries/delivery.response';
import { WebhookSubscriptionResponse } from './subscription.response';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { deliveryView } from '../deliveries/delivery';
import { subscriptionView } from './subscription';
import { CreateSubscriptionBody, UpdateSubscriptionBody } from './subscriptions.dto';
import { SubscriptionsRepository } from './subscriptions.repository';
import { CreateSubscription } from './use-cases/create-subscription.use-case';
import { DeleteSubscription } from './use-cases/delete-subscription.use-case';
import { EnableSubscription } from './use-cases/enable-subscription.use-case';
import { ownedApplicationId, ownedSubscription } from './use-cases/owned-subscription';
import { RotateSecret } from './use-cases/rotate-secret.use-case';
import { SendTestDelivery } from './use-cases/send-test-delivery.use-case';
import { UpdateSubscription } from './use-cases/update-subscription.use-case';

/**
 * Webhook subscriptions of an application (its API token, or its account's credentials with a role:
 * reads auditor, changes developer; account credentials are resolved where decision-gateway runs):
 * create, list, get, delete, rotate the secret, re-enable, send a test delivery, read the delivery log.
 */
@Controller('api/v1/applications/:application_id/webhook_subscriptions')
@AccountAccess()
export class SubscriptionsController {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly deliveries: DeliveriesRepository,
    private readonly createSubscription: CreateSubscription,
    private readonly updateSubscription: UpdateSubscription,
    private readonly deleteSubscription: DeleteSubscription,
    private readonly rotateSecret: RotateSecret,
    private readonly enableSubscription: EnableSubscription,
    private readonly sendTestDelivery: SendTestDelivery,
    private readonly clock: Clock,
  ) {}

  /** 201; `secret` (`whsec_…`) is in this response only. */
  @ApiDoc({
    tag: 'Webhooks',
    summary:
      'Create a webhook subscription (url, events, optional signature_formats: ["svc"] by default, ["svc", "standard_webhooks"] adds webhook-id, webhook-timestamp and webhook-signature); https only for production applications',
    response:
      'Subscription: id (whsub_…), object, application_id, url, events, signature_formats (svc|standard_webhooks), status (enabled|disabled), disabled_reason (endpoint_gone|consecutive_failures|null), disabled_at, consecutive_failures, previous_secret_expires_at, created_at, updated_at, plus secret (whsec_…, shown only here)',
    errors: [400, 401, 403, 404, 409, 422],
  })
  @Post()
  @ApiResponseOf(WebhookSubscriptionResponse)
  async create(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Body() body: CreateSubscriptionBody,
  ): Promise<Record<string, unknown>> {
    const { subscription, secret } = await this.createSubscription.execute(principal, applicationId, {
      url: body.url,
      events: body.events,
      signatureFormats: body.signature_formats,
    });
    return { ...subscriptionView(subscription, this.clock.now()), secret };
  }

  @ApiDoc({ tag: 'Webhooks', summary: 'List webhook subscriptions', response: 'Page of Subscription: data, has_more, next_cursor' })
  @Get()
  @ApiResponseOf(WebhookSubscriptionResponse, { page: true })
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Query() query: PageQuery,
  ): Promise<Page<Record<string, unknown>>> {
    ownedApplicationId(principal, applicationId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.subscriptions.list(applicationId, limit + 1, after ? { createdAt: after.created_at, id: after.id } : undefined);
    const now = this.clock.now();
    return toPage(
      rows,
      limit,
      (s) => subscriptionView(s, now),
      (s) => ({ created_at: s.createdAt.toISOString(), id: s.id }),
    );
  }

  @ApiDoc({
    tag: 'Webhooks',
    summary: 'Read a webhook subscription',
    response:
      'Subscription: id (whsub_…), object, application_id, url, events, signature_formats (svc|standard_webhooks), status (enabled|disabled), disabled_reason (endpoint_gone|consecutive_failures|null), disabled_at, consecutive_failures, previous_secret_expires_at, created_at, updated_at',
  })
  @Get(':subscription_id')
  @ApiResponseOf(WebhookSubscriptionResponse)
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
  ): Promise<Record<string, unknown>> {
    return subscriptionView(await ownedSubscription(this.subscriptions, principal, applicationId, id), this.clock.now());
  }

  /** 200; the signature formats apply from the next attempt on. */
  @ApiDoc({
    tag: 'Webhooks',
    summary:
      'Choose the signature headers of a subscription: signature_formats ["svc"] or ["svc", "standard_webhooks"] (Standard Webhooks needs a base64 whsec_ secret: 409 webhook_secret_rotation_required for an older one)',
    response:
      'Subscription: id (whsub_…), object, application_id, url, events, signature_formats (svc|standard_webhooks), status (enabled|disabled), disabled_reason (endpoint_gone|consecutive_failures|null), disabled_at, consecutive_failures, previous_secret_expires_at, created_at, updated_at',
    errors: [400, 401, 403, 404, 409],
  })
  @Patch(':subscription_id')
  @ApiResponseOf(WebhookSubscriptionResponse)
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
    @Body() body: UpdateSubscriptionBody,
  ): Promise<Record<string, unknown>> {
    return subscriptionView(
      await this.updateSubscription.execute(principal, applicationId, id, { signatureFormats: body.signature_formats }),
      this.clock.now(),
    );
  }

  /** 204; pending deliveries and the delivery log go with it. */
  @ApiDoc({
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription, its pending deliveries and its delivery log',
    response: 'No content',
  })
  @Delete(':subscription_id')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
  ): Promise<void> {
    await this.deleteSubscription.execute(principal, applicationId, id);
  }

  /** 200; the new `secret` is in this response only; the previous one keeps signing for a day. */
  @ApiDoc({
    tag: 'Webhooks',
    summary:
      'Rotate the signing secret; the previous one keeps signing for 1 day (X-Svc-Signature: v1=<new> v1=<old>; webhook-signature: v1,<new> v1,<old>)',
    response:
      'Subscription: id (whsub_…), object, application_id, url, events, signature_formats (svc|standard_webhooks), status (enabled|disabled), disabled_reason (endpoint_gone|consecutive_failures|null), disabled_at, consecutive_failures, previous_secret_expires_at, created_at, updated_at, plus the new secret (shown only here)',
  })
  @Post(':subscription_id/rotate_secret')
  @HttpCode(200)
  @ApiResponseOf(WebhookSubscriptionResponse)
  async rotate(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
  ): Promise<Record<string, unknown>> {
    const { subscription, secret } = await this.rotateSecret.execute(principal, applicationId, id);
    return { ...subscriptionView(subscription, this.clock.now()), secret };
  }

  /** 200; re-enables a disabled subscription and clears its failure count. */
  @ApiDoc({
    tag: 'Webhooks',
    summary: 'Re-enable a disabled subscription and clear its failure count',
    response:
      'Subscription: id (whsub_…), object, application_id, url, events, signature_formats (svc|standard_webhooks), status (enabled|disabled), disabled_reason (endpoint_gone|consecutive_failures|null), disabled_at, consecutive_failures, previous_secret_expires_at, created_at, updated_at',
  })
  @Post(':subscription_id/enable')
  @HttpCode(200)
  @ApiResponseOf(WebhookSubscriptionResponse)
  async enable(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
  ): Promise<Record<string, unknown>> {
    return subscriptionView(await this.enableSubscription.execute(principal, applicationId, id), this.clock.now());
  }

  /** 202; the queued `webhook.test` delivery, whose outcome appears in the delivery log. */
  @ApiDoc({
    tag: 'Webhooks',
    summary: 'Queue a signed webhook.test delivery (one attempt; never counts toward auto-disable)',
    response:
      'Delivery: id (whdel_…), object, event_id (X-Svc-Event-ID), event_type, test, status (pending|succeeded|failed), attempt_count, max_attempts, next_attempt_at, last_status_code, last_error, created_at, completed_at, payload (null after retention), attempts [{number, started_at, latency_ms, status_code, error, outcome (succeeded|retry|failed)}]',
  })
  @Post(':subscription_id/test')
  @HttpCode(202)
  @ApiResponseOf(WebhookDeliveryResponse)
  async test(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
  ): Promise<Record<string, unknown>> {
    const d = await this.sendTestDelivery.execute(principal, applicationId, id);
    return deliveryView({
      id: d.id,
      eventId: d.eventId,
      eventType: d.eventType,
      isTest: true,
      status: 'pending',
      attempts: 0,
      maxAttempts: d.maxAttempts,
      nextAttemptAt: d.createdAt,
      lastStatusCode: null,
      lastError: null,
      payload: d.payload,
      createdAt: d.createdAt,
      completedAt: null,
      attemptLog: [],
    });
  }

  /** The delivery log, newest first, each delivery with all its attempts (at most five). */
  @ApiDoc({
    tag: 'Webhooks',
    summary: 'Delivery log of a subscription, newest first',
    response:
      'Page of Delivery: id (whdel_…), object, event_id (X-Svc-Event-ID), event_type, test, status (pending|succeeded|failed), attempt_count, max_attempts, next_attempt_at, last_status_code, last_error, created_at, completed_at, payload (null after retention), attempts [{number, started_at, latency_ms, status_code, error, outcome (succeeded|retry|failed)}]',
  })
  @Get(':subscription_id/deliveries')
  @ApiResponseOf(WebhookDeliveryResponse, { page: true })
  async log(
    @CurrentPrincipal() principal: Principal,
    @Param('application_id') applicationId: string,
    @Param('subscription_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<Record<string, unknown>>> {
    const subscription = await ownedSubscription(this.subscriptions, principal, applicationId, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const before = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.deliveries.log(
      subscription.id,
      limit + 1,
      before ? { createdAt: before.created_at, id: before.id } : undefined,
    );
    return toPage(rows, limit, deliveryView, (d) => ({ created_at: d.createdAt.toISOString(), id: d.id }));
  }
}
