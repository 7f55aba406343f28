import { ROOT_CONTEXT, context, trace } from '@opentelemetry/api';
import { recordFailure } from '@svc/telemetry';
import type { ConsumerMessages, JsMsg } from 'nats';
import type { BusConnection } from './bus-connection';
import { deliveredEventOf, openDurable, redeliveryDelayMs, startProcessSpan, type ConsumerLogger, type DeliveredEvent, type PullConsumerSettings } from './pull-consumer';

export type { ConsumerLogger, DeliveredEvent } from './pull-consumer';

export type DurableConsumerOptions = PullConsumerSettings;

export type EventHandler = (event: DeliveredEvent) => Promise<void>;

/**
 * Pull consumer with explicit acks. A handler that throws is redelivered after a backoff until
 * `maxDeliver`; the handler must therefore be idempotent (the persistence inbox makes it so).
 * The handler runs inside a consumer span that is a child of the publisher's span.
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
    const consumer = await openDurable(this.bus, this.options);
    this.messages = await consumer.consume({ max_messages: 256 });
    const messages = this.messages;
    this.loop = (async () => {
      for await (const msg of messages) await this.dispatch(msg, handler);
    })();
  }

  private async dispatch(msg: JsMsg, handler: EventHandler): Promise<void> {
    const event = deliveredEventOf(msg);
    const span = startProcessSpan(event, this.options.durable);
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), () => handler(event));
      msg.ack();
    } catch (error) {
      recordFailure(span, error);
      this.logger.error('event handler failed; will redeliver', {
        durable: this.options.durable,
        subject: event.subject,
        eventId: event.id,
        deliveryCount: event.deliveryCount,
        error: error instanceof Error ? error.message : String(error),
      });
      msg.nak(redeliveryDelayMs(event.deliveryCount));
    } finally {
      span.end();
    }
  }

  async stop(): Promise<void> {
    this.messages?.stop();
    await this.loop?.catch(() => undefined);
  }
}
