import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import { NANOS_PER_MS, type BusConnection } from '@svc/bus';
import { regionEventWildcard, regionStreamName } from '@svc/contracts';
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
 * Consumes the region's whole event stream (`<prefix>.<region>.evt.>`) with a durable pull
 * consumer and explicit acks, and appends the audit-worthy events (selected by type string).
 *
 * Unlike `DurableConsumer`, deliveries are handled concurrently (up to `maxInFlight`) so that
 * they meet in the appender's group commits; each is acked only after its entry committed.
 * Redelivery is harmless: the entry's source id is the event id (Nats-Msg-Id), unique in the
 * chain, so a second delivery resolves to the first entry.
 */
export class AuditEventConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly bus: BusConnection,
    private readonly appender: AuditAppender,
    private readonly log: ConsumerErrorLog,
    private readonly options: AuditEventConsumerOptions = {},
  ) {}

  async start(): Promise<void> {
    const stream = regionStreamName(this.bus.prefix, this.bus.region);
    const durable = this.options.durable ?? 'audit-chain';
    const ackWait = (this.options.ackWaitMs ?? 30_000) * NANOS_PER_MS;
    try {
      await this.bus.jsm.consumers.info(stream, durable);
      await this.bus.jsm.consumers.update(stream, durable, { max_deliver: -1, ack_wait: ackWait });
    } catch {
      await this.bus.jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: regionEventWildcard(this.bus.prefix, this.bus.region),
        // Never give up: an audit-worthy event must end up in the chain, however long Postgres is down.
        max_deliver: -1,
        ack_wait: ackWait,
      });
    }
    const consumer = await this.bus.js.consumers.get(stream, durable);
    const maxInFlight = this.options.maxInFlight ?? 512;
    this.messages = await consumer.consume({ max_messages: maxInFlight });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        const eventType = msg.headers?.get('Svc-Event-Type') ?? '';
        if (!isAuditWorthy(eventType)) {
          msg.ack();
          continue;
        }
        const work = this.handle(msg, eventType).finally(() => this.inFlight.delete(work));
        this.inFlight.add(work);
        if (this.inFlight.size >= maxInFlight) await Promise.race(this.inFlight);
      }
    })();
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
  }

  private async handle(msg: JsMsg, eventType: string): Promise<void> {
    const event: SourceEvent = { id: msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}:${msg.seq}`, eventType, data: msg.data };
    try {
      await this.appender.appendOne(toEntry(event));
      msg.ack();
    } catch (error) {
      const deliveryCount = msg.info.redeliveryCount;
      this.log.error(
        { eventId: event.id, eventType, deliveryCount, error: error instanceof Error ? error.message : String(error) },
        'audit append failed; will redeliver',
      );
      msg.nak(Math.min(30_000, 500 * 2 ** Math.min(deliveryCount, 6)));
    }
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
