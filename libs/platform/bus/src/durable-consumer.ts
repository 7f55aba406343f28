import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import { regionStreamName } from '@svc/contracts';
import type { BusConnection } from './bus-connection';
import { NANOS_PER_MS } from './streams';

export interface DeliveredEvent {
  /** The publisher's Nats-Msg-Id: the key consumers deduplicate by. */
  id: string;
  subject: string;
  eventType: string;
  data: Uint8Array;
  /** 1 on first delivery, higher on redelivery. */
  deliveryCount: number;
}

export interface DurableConsumerOptions {
  /** Durable name, unique per consuming service. */
  durable: string;
  /** Subject filter inside the region stream, e.g. `svc.us.evt.consent.>`. */
  filterSubject: string;
  /** Deliveries before JetStream gives up on a message (bounded redelivery). */
  maxDeliver?: number;
  /** How long a delivery may stay unacknowledged before JetStream redelivers it. */
  ackWaitMs?: number;
}

export type EventHandler = (event: DeliveredEvent) => Promise<void>;

export interface ConsumerLogger {
  error(message: string, context: Record<string, unknown>): void;
}

/**
 * Pull consumer with explicit acks. A handler that throws is redelivered after a backoff until
 * `maxDeliver`; the handler must therefore be idempotent (the persistence inbox makes it so).
 */
export class DurableConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;

  constructor(
    private readonly bus: BusConnection,
    private readonly options: DurableConsumerOptions,
    private readonly logger: ConsumerLogger,
  ) {}

  async start(handler: EventHandler): Promise<void> {
    const stream = regionStreamName(this.bus.prefix, this.bus.region);
    const config = {
      durable_name: this.options.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: this.options.filterSubject,
      max_deliver: this.options.maxDeliver ?? 10,
      ack_wait: (this.options.ackWaitMs ?? 30_000) * NANOS_PER_MS,
    };
    try {
      await this.bus.jsm.consumers.info(stream, this.options.durable);
      await this.bus.jsm.consumers.update(stream, this.options.durable, { max_deliver: config.max_deliver, ack_wait: config.ack_wait });
    } catch {
      await this.bus.jsm.consumers.add(stream, config);
    }
    const consumer = await this.bus.js.consumers.get(stream, this.options.durable);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) await this.dispatch(msg, handler);
    })();
  }

  private async dispatch(msg: JsMsg, handler: EventHandler): Promise<void> {
    const event: DeliveredEvent = {
      id: msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}:${msg.seq}`,
      subject: msg.subject,
      eventType: msg.headers?.get('Svc-Event-Type') ?? '',
      data: msg.data,
      deliveryCount: msg.info.redeliveryCount,
    };
    try {
      await handler(event);
      msg.ack();
    } catch (error) {
      const delay = Math.min(30_000, 500 * 2 ** Math.min(event.deliveryCount, 6));
      this.logger.error('event handler failed; will redeliver', {
        durable: this.options.durable,
        subject: event.subject,
        eventId: event.id,
        deliveryCount: event.deliveryCount,
        error: error instanceof Error ? error.message : String(error),
      });
      msg.nak(delay);
    }
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
  }
}
