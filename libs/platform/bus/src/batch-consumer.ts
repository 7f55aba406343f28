import { recordFailure } from '@svc/telemetry';
import type { ConsumerMessages, JsMsg } from 'nats';
import type { BusConnection } from './bus-connection';
import { deliveredEventOf, openDurable, redeliveryDelayMs, startProcessSpan, type DeliveredEvent, type PullConsumerSettings } from './pull-consumer';

export interface BatchConsumerOptions extends PullConsumerSettings {
  /** Most events handed to the handler at once. Default 256. */
  maxBatch?: number;
}

/**
 * How a batch went, event by event (same order as the batch): a fulfilled entry is acked, a
 * rejected one nak'ed for redelivery. `Promise.allSettled` over the events yields exactly this.
 */
export type BatchOutcomes = ReadonlyArray<PromiseSettledResult<unknown>>;

/**
 * Handles a batch. Resolving with nothing acks every event; resolving with outcomes acks and
 * naks each by its own; throwing naks the whole batch.
 */
export type BatchHandler = (events: readonly DeliveredEvent[]) => Promise<BatchOutcomes | void>;

/** Told about each failure: a thrown batch (all its events), or one failed event of a batch. */
export type BatchErrorListener = (error: unknown, events: readonly DeliveredEvent[]) => void;

/**
 * Durable pull consumer with explicit acks, like {@link DurableConsumer}, that hands its handler
 * every message that arrived while the previous batch was being handled (up to `maxBatch`) at
 * once — so a handler can write a batch in one transaction (group commit), or handle its events
 * concurrently. Each event is acked only after the handler succeeded with it; a failed one is
 * nak'ed with a backoff and redelivered until `maxDeliver`, so the handler must be idempotent.
 * JetStream's max_ack_pending bounds how many messages wait unacknowledged. Each event gets a
 * consumer span, a child of its publisher's, that ends at its ack or nak; the event's `trace`
 * names it, for work the handler hands on.
 */
export class BatchConsumer {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private draining?: Promise<void>;
  private readonly buffer: JsMsg[] = [];
  private readonly maxBatch: number;

  constructor(
    private readonly bus: BusConnection,
    private readonly options: BatchConsumerOptions,
    private readonly onError: BatchErrorListener,
  ) {
    this.maxBatch = options.maxBatch ?? 256;
  }

  async start(handler: BatchHandler): Promise<void> {
    const consumer = await openDurable(this.bus, this.options);
    const messages = await consumer.consume({ max_messages: this.maxBatch * 2 });
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

  /** Hands over everything buffered, a batch at a time; messages arriving meanwhile form the next batch. */
  private async drain(handler: BatchHandler): Promise<void> {
    while (this.buffer.length > 0) await this.dispatch(this.buffer.splice(0, this.maxBatch), handler);
  }

  private async dispatch(batch: JsMsg[], handler: BatchHandler): Promise<void> {
    const events = batch.map(deliveredEventOf);
    const spans = events.map((event) => startProcessSpan(event, this.options.durable));
    let outcomes: BatchOutcomes | void;
    try {
      outcomes = await handler(events);
    } catch (error) {
      this.onError(error, events);
      // The batch comes back together, after the backoff its most redelivered event has earned.
      const delay = redeliveryDelayMs(Math.max(...events.map((e) => e.deliveryCount)));
      for (const msg of batch) msg.nak(delay);
      for (const span of spans) {
        recordFailure(span, error);
        span.end();
      }
      return;
    }
    batch.forEach((msg, i) => {
      const outcome = outcomes?.[i];
      if (outcome?.status === 'rejected') {
        this.onError(outcome.reason, [events[i]!]);
        msg.nak(redeliveryDelayMs(events[i]!.deliveryCount));
        recordFailure(spans[i]!, outcome.reason);
      } else {
        msg.ack();
      }
      spans[i]!.end();
    });
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
  }
}
