import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import { type BusConnection, type DeliveredEvent, NANOS_PER_MS } from '@svc/bus';
import { regionStreamName } from '@svc/contracts';

/** Largest number of events handled in one batch (one transaction). */
const MAX_BATCH = 256;

export interface BatchedConsumerOptions {
  durable: string;
  filterSubject: string;
  maxDeliver?: number;
  ackWaitMs?: number;
}

/**
 * A durable JetStream pull consumer with explicit acks, like @svc/bus DurableConsumer, that hands its
 * handler every message that arrived while the previous batch was being handled (up to 256) at once, so the handler can write a whole batch
 * in one transaction (group commit) instead of one transaction per event. Acks follow the handler's
 * success; a failing batch is nak'ed with a backoff and redelivered (the handler must be idempotent).
 */
export class BatchedConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private draining?: Promise<void>;
  private readonly buffer: JsMsg[] = [];

  constructor(
    private readonly bus: BusConnection,
    private readonly options: BatchedConsumerOptions,
    private readonly onError: (error: unknown, events: number) => void,
  ) {}

  async start(handler: (events: DeliveredEvent[]) => Promise<void>): Promise<void> {
    const stream = regionStreamName(this.bus.prefix, this.bus.region);
    const maxDeliver = this.options.maxDeliver ?? 10;
    const ackWait = (this.options.ackWaitMs ?? 30_000) * NANOS_PER_MS;
    try {
      await this.bus.jsm.consumers.info(stream, this.options.durable);
      await this.bus.jsm.consumers.update(stream, this.options.durable, { max_deliver: maxDeliver, ack_wait: ackWait });
    } catch {
      await this.bus.jsm.consumers.add(stream, {
        durable_name: this.options.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: this.options.filterSubject,
        max_deliver: maxDeliver,
        ack_wait: ackWait,
      });
    }
    const consumer = await this.bus.js.consumers.get(stream, this.options.durable);
    const messages = await consumer.consume({ max_messages: MAX_BATCH * 2 });
    this.messages = messages;
    this.loop = (async () => {
      for await (const msg of messages) {
        this.buffer.push(msg);
        this.draining ??= this.drain(handler).finally(() => {
          this.draining = undefined;
        });
      }
      await this.draining;
    })();
  }

  /**
   * Hands over everything buffered, a batch at a time; messages arriving meanwhile form the next
   * batch. JetStream's max_ack_pending bounds how many wait unacknowledged.
   */
  private async drain(handler: (events: DeliveredEvent[]) => Promise<void>): Promise<void> {
    while (this.buffer.length > 0) await this.dispatch(this.buffer.splice(0, MAX_BATCH), handler);
  }

  private async dispatch(batch: JsMsg[], handler: (events: DeliveredEvent[]) => Promise<void>): Promise<void> {
    const events = batch.map((msg) => ({
      id: msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}:${msg.seq}`,
      subject: msg.subject,
      eventType: msg.headers?.get('Svc-Event-Type') ?? '',
      data: msg.data,
      deliveryCount: msg.info.redeliveryCount,
    }));
    try {
      await handler(events);
      for (const msg of batch) msg.ack();
    } catch (error) {
      this.onError(error, batch.length);
      const attempt = Math.max(...events.map((e) => e.deliveryCount));
      for (const msg of batch) msg.nak(Math.min(30_000, 500 * 2 ** Math.min(attempt, 6)));
    }
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
  }
}
