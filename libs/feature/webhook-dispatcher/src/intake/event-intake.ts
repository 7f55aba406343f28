import { Controller, Inject } from '@nestjs/common';
import { BusConnection, EventBatchConsumer, type BatchOutcomes, type DeliveredEvent } from '@svc/bus';
import { Clock } from '@svc/config';
import { webhookTypesOf } from '@svc/contracts';
import { commitIsolatingFailures, markProcessed } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger, TraceCarrier } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import type { NewDelivery } from '../deliveries/delivery';
import { DeliveryWorker } from '../deliveries/delivery-worker';
import { MAX_ATTEMPTS } from '../deliveries/retry-schedule';
import { metaOnly, webhookBody, type WebhookEvent } from '../deliveries/webhook-body';
import { newDeliveryId } from '../ids';
import { WEBHOOKS_SCHEMA } from '../schema';
import { SubscribedApplications } from '../subscriptions/subscribed-applications';
import { SubscriptionsRepository } from '../subscriptions/subscriptions.repository';
import { INTAKE_SUBJECT_FILTERS } from '../webhook-events';
import { webhookFor, type WebhookMapping } from './webhook-mapping';

/** Inbox consumer name of the intake (one inbox row per source event). */
export const INTAKE_CONSUMER = 'webhook-intake';

/**
 * Turns region events into deliveries. Durable JetStream batch consumers (one per subject filter) read
 * the subscribable types and the renamed record events (`webhookFor`); each event becomes one
 * delivery row per enabled subscription listening to its webhook name, inserted in the same
 * transaction as the event's inbox mark (and unique on event id + subscription id), so a
 * redelivered event never doubles a delivery and an acknowledged one is never lost. Events
 * buffered together are written in one transaction (group commit). The events of an application
 * without an enabled subscription (most of them) cost no statement and leave no inbox row: which
 * applications have one is kept in memory ({@link SubscribedApplications}).
 */
@Controller()
export class EventIntake {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsRepository,
    private readonly subscribed: SubscribedApplications,
    private readonly deliveries: DeliveriesRepository,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Fans one bus event out to its subscribers; returns the deliveries created. */
  handle(event: DeliveredEvent): Promise<number> {
    return this.handleBatch([event]);
  }

  /**
   * The consumer's handler: the batch in one transaction; when the database refuses it (a deadlock
   * runs it again), each event in a transaction of its own, so only an event that cannot be
   * written is redelivered and the others are acknowledged.
   */
  @EventBatchConsumer(
    INTAKE_SUBJECT_FILTERS.map((filter) => ({
      durable: `webhook-dispatcher-${filter.replace(/[.>*]+/g, '-').replace(/-+$/, '')}`,
      types: filter,
    })),
  )
  async handleIsolatingFailures(events: readonly DeliveredEvent[]): Promise<BatchOutcomes> {
    const outcomes = await commitIsolatingFailures(events, async (batch) => {
      await this.handleBatch(batch);
      return batch.map(() => ({ ok: true as const, value: undefined }));
    });
    return outcomes.map((outcome): PromiseSettledResult<unknown> =>
      outcome.ok ? { status: 'fulfilled', value: undefined } : { status: 'rejected', reason: outcome.error },
    );
  }

  /**
   * Fans a batch of bus events out in one transaction; returns the deliveries created. The events
   * of applications without an enabled subscription are dropped first (the answer is cached,
   * renewed at a subscription's commit): a batch of only those asks no statement.
   */
  async handleBatch(events: readonly DeliveredEvent[]): Promise<number> {
    const routes = events.map((event) => this.applicationOf(event));
    const subscribed = await this.subscribed.subscribedOf(routes.filter((id): id is string => id !== undefined));
    const byId = new Map<string, WebhookEvent>();
    const traces = new Map<string, TraceCarrier | undefined>();
    for (const [i, event] of events.entries()) {
      const applicationId = routes[i];
      // No subscriber: neither decoded nor opened.
      if (applicationId !== undefined && !subscribed.has(applicationId)) continue;
      const webhookEvent = this.toWebhookEvent(event);
      if (!webhookEvent || !subscribed.has(webhookEvent.applicationId)) continue;
      byId.set(webhookEvent.id, webhookEvent);
      traces.set(webhookEvent.id, event.trace);
    }
    if (byId.size === 0) return 0;
    const now = this.clock.now();
    const created = await this.dataSource.transaction(async (manager) => {
      const fresh = new Set(await markProcessed(manager, WEBHOOKS_SCHEMA, INTAKE_CONSUMER, [...byId.keys()]));
      const todo = [...byId.values()].filter((e) => fresh.has(e.id));
      if (todo.length === 0) return 0;
      const subscribers = await this.subscriptions.enabledOfApplications(manager, [...new Set(todo.map((e) => e.applicationId))]);
      const rows: NewDelivery[] = [];
      for (const event of todo) {
        const listening = subscribers.filter((s) => s.applicationId === event.applicationId && s.events.includes(event.type));
        if (listening.length === 0) continue;
        const payload = webhookBody(event);
        for (const s of listening) {
          rows.push({
            id: newDeliveryId(),
            subscriptionId: s.id,
            applicationId: event.applicationId,
            eventId: event.id,
            eventType: event.type,
            isTest: false,
            payload,
            maxAttempts: MAX_ATTEMPTS,
            trace: traces.get(event.id),
          });
        }
      }
      return this.deliveries.enqueue(manager, rows, now);
    });
    if (created > 0) this.worker.kick();
    return created;
  }

  /**
   * The application of a webhook event, read from its envelope only (its sealed fields stay
   * closed); undefined for a type that is no webhook and for an envelope that does not read or
   * names no application (the full mapping then skips and logs it).
   */
  private applicationOf(event: DeliveredEvent): string | undefined {
    if (webhookTypesOf(event.eventType).length === 0) return undefined;
    try {
      return metaOnly(event.data)?.applicationId || undefined;
    } catch {
      return undefined;
    }
  }

  private toWebhookEvent(event: DeliveredEvent): WebhookEvent | undefined {
    let mapping: WebhookMapping;
    try {
      mapping = webhookFor(event.id, event.eventType, event.data, this.bus.personalData);
    } catch (error) {
      // A payload that does not decode will never decode: skip it rather than fail (and, after
      // max_deliver, lose) the well-formed events batched with it.
      this.logger.error(
        { eventId: event.id, eventType: event.eventType, err: error instanceof Error ? error.message : String(error) },
        'undecodable event; no webhook',
      );
      return undefined;
    }
    if ('webhook' in mapping) return mapping.webhook;
    if (mapping.skipped === 'no_application')
      this.logger.warn({ eventId: event.id, eventType: event.eventType }, 'event without application; no webhook');
    return undefined;
  }
}
