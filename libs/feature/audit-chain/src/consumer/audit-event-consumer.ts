import { BatchConsumer, type BusConnection, type DeliveredEvent } from '@svc/bus';
import { regionEventWildcard } from '@svc/contracts';
import type { AuditAppender } from '../chain/audit-appender';
import type { AuditEntryInput } from '../chain/audit-entry';
import { isAuditWorthy } from '../chain/audit-worthy';
import { summariseEvent, type SourceEvent } from '../chain/event-summary';

/** Settings of {@link AuditEventConsumer}. */
export interface AuditEventConsumerOptions {
  /** Durable consumer name; default `audit-chain`. */
  readonly durable?: string;
  /** Deliveries handled concurrently (they share group commits); default 512. */
  readonly maxInFlight?: number;
  /** How long a delivery may stay unacknowledged before redelivery, ms; default 30 000. */
  readonly ackWaitMs?: number;
}

/** Where errors go (structurally a pino logger). */
export interface ConsumerErrorLog {
  error(context: Record<string, unknown>, message: string): void;
}

/**
 * Consumes the region's whole event stream (`<prefix>.<region>.evt.>`) with a durable batch
 * consumer and explicit acks, and appends the audit-worthy events (selected by type string).
 *
 * The events of a batch (up to `maxInFlight`) are appended concurrently so that they meet in the
 * appender's group commits; each is acked only after its entry committed, and a failed one alone
 * is redelivered. Redelivery is harmless: the entry's source id is the event id (Nats-Msg-Id),
 * unique in the chain, so a second delivery resolves to the first entry. Other events are acked
 * untouched.
 */
export class AuditEventConsumer {
  private readonly consumer: BatchConsumer;

  constructor(
    bus: BusConnection,
    private readonly appender: AuditAppender,
    private readonly log: ConsumerErrorLog,
    options: AuditEventConsumerOptions = {},
  ) {
    this.consumer = new BatchConsumer(
      bus,
      {
        durable: options.durable ?? 'audit-chain',
        filterSubject: regionEventWildcard(bus.prefix, bus.region),
        // Never give up: an audit-worthy event must end up in the chain, however long Postgres is down.
        maxDeliver: -1,
        ackWaitMs: options.ackWaitMs ?? 30_000,
        maxBatch: options.maxInFlight ?? 512,
      },
      (error, events) => {
        for (const event of events) {
          this.log.error(
            { eventId: event.id, eventType: event.eventType, deliveryCount: event.deliveryCount, error: error instanceof Error ? error.message : String(error) },
            'audit append failed; will redeliver',
          );
        }
      },
    );
  }

  async start(): Promise<void> {
    await this.consumer.start((events) => Promise.allSettled(events.map((event) => this.handle(event))));
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
  }

  private async handle(event: DeliveredEvent): Promise<void> {
    if (!isAuditWorthy(event.eventType)) return;
    await this.appender.appendOne(toEntry({ id: event.id, eventType: event.eventType, data: event.data }));
  }
}

/** The entry for an event; an undecodable payload is still recorded (as base64), never dropped. */
function toEntry(event: SourceEvent): AuditEntryInput {
  try {
    return summariseEvent(event);
  } catch {
    return {
      type: event.eventType,
      sourceEventId: event.id,
      data: { event_id: event.id, encoding: 'protobuf_base64', undecodable: true, payload: Buffer.from(event.data).toString('base64') },
    };
  }
}
