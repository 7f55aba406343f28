import { Controller, Inject } from '@nestjs/common';
import { BusConnection, EventBatchConsumer, type BatchOutcomes, type DeliveredEvent } from '@svc/bus';
import { Clock } from '@svc/config';
import { commitIsolatingFailures, markProcessed } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { MAX_ATTEMPTS } from '../deliveries/retry-schedule';
import { newSetDeliveryId } from '../ids';
import { WEBHOOKS_SCHEMA } from '../schema';
import { securityEventOf, SSF_SOURCE_EVENTS, type SecurityEvent } from './security-events';
import { SetDeliveriesRepository, type NewSetDelivery } from './set-deliveries.repository';
import { SetSigner } from './set-signer';
import { SsfStreamsRepository } from './ssf-streams.repository';
import { SetDeliveryWorker } from './set-delivery-worker';

/** Inbox consumer name of the security-event intake (one inbox row per source event). */
export const SSF_INTAKE_CONSUMER = 'ssf-intake';

/**
 * Turns revocations on the region's stream into SETs. Durable JetStream consumers (one per source
 * event type) hand events over in batches; each batch writes its inbox marks and one signed SET
 * delivery per (event, stream of the event's application requesting its type) in one transaction,
 * so a redelivered event never doubles a SET and an acknowledged one is never lost. The SET is
 * signed here, once, so every retry pushes the very same token.
 */
@Controller()
export class SsfIntake {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly streams: SsfStreamsRepository,
    private readonly deliveries: SetDeliveriesRepository,
    private readonly signer: SetSigner,
    private readonly worker: SetDeliveryWorker,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** The durables' handler: a batch whose transaction fails is retried event by event, so one bad event fails alone. */
  @EventBatchConsumer(
    SSF_SOURCE_EVENTS.map((type) => ({ durable: `webhook-dispatcher-ssf-${type.replace(/[.>*_]+/g, '-')}`, types: type })),
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

  /** Writes the SETs of a batch of bus events in one transaction; the number of deliveries created. */
  async handleBatch(events: readonly DeliveredEvent[]): Promise<number> {
    const byId = new Map<string, SecurityEvent>();
    for (const event of events) {
      const security = this.toSecurityEvent(event);
      if (security) byId.set(security.sourceEventId, security);
    }
    if (byId.size === 0) return 0;
    const now = this.clock.now();
    const created = await this.dataSource.transaction(async (manager) => {
      const fresh = new Set(await markProcessed(manager, WEBHOOKS_SCHEMA, SSF_INTAKE_CONSUMER, [...byId.keys()]));
      const todo = [...byId.values()].filter((e) => fresh.has(e.sourceEventId));
      if (todo.length === 0) return 0;
      const streams = await this.streams.receivingOf(manager, [...new Set(todo.map((e) => e.applicationId))]);
      const rows: NewSetDelivery[] = [];
      for (const event of todo) {
        for (const stream of streams) {
          if (stream.applicationId !== event.applicationId || !stream.eventsRequested.includes(event.type)) continue;
          const setJwt = await this.signer.sign({
            jti: `${event.sourceEventId}.${stream.id}`,
            audience: stream.audience,
            subject: event.subject,
            eventType: event.type,
            payload: event.payload,
            issuedAt: now,
            txn: event.sourceEventId,
          });
          rows.push({
            id: newSetDeliveryId(),
            streamId: stream.id,
            sourceEventId: event.sourceEventId,
            eventType: event.type,
            setJwt,
            maxAttempts: MAX_ATTEMPTS,
          });
        }
      }
      return this.deliveries.enqueue(manager, rows, now);
    });
    if (created > 0) this.worker.kick();
    return created;
  }

  private toSecurityEvent(event: DeliveredEvent): SecurityEvent | undefined {
    try {
      return securityEventOf(event.id, event.eventType, event.data, this.signer.issuer, this.bus.personalData);
    } catch (error) {
      // A payload that does not decode never will: skip it rather than fail its batch.
      this.logger.error(
        { eventId: event.id, eventType: event.eventType, err: error instanceof Error ? error.message : String(error) },
        'undecodable event; no security event',
      );
      return undefined;
    }
  }
}
