import { Module, UseFilters, applyDecorators, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BaseRpcContext, EventPattern, Server, type CustomTransportStrategy, type MessageHandler, type MicroserviceOptions } from '@nestjs/microservices';
import { eventSubject } from '@svc/contracts';
import { isObservable, lastValueFrom } from 'rxjs';
import { BatchConsumer, type BatchOutcomes } from './batch-consumer';
import type { BusConnection } from './bus-connection';
import { DurableConsumer } from './durable-consumer';
import { RpcErrorPassthrough } from './nest-rpc';
import type { ConsumerLogger, DeliveredEvent } from './pull-consumer';

/** What an `@EventConsumer` subscribes: a durable of its own on the region stream, filtered by event type. */
export interface EventSubscription {
  /** Durable name, unique per consuming service. */
  durable: string;
  /** Event type, or a NATS wildcard of types (e.g. `approval.>`), inside the region stream. */
  types: string;
  /**
   * Region whose stream the durable reads (its events' subjects are that region's): the bus's own
   * by default; another region's for a replica of its events.
   */
  region?: string;
}

/** How the durable delivers. */
export interface EventDelivery {
  /** Deliveries before JetStream gives up on a message; -1 never gives up. Default 10. */
  maxDeliver?: number;
  /** How long a delivery may stay unacknowledged before it is redelivered, ms. Default 30 000. */
  ackWaitMs?: number;
  /**
   * Hand the handler every event that arrived while the previous batch was being handled (up to
   * this many) at once, for a group commit; the handler then returns per-event outcomes.
   */
  batch?: number;
}

/** The context an `@EventConsumer` method may take second (`@Ctx()`): the durable it runs in. */
export class JetStreamContext extends BaseRpcContext<[string]> {
  getDurable(): string {
    return this.args[0];
  }
}

type SingleHandler = (event: DeliveredEvent, context: JetStreamContext) => Promise<void>;
type BatchHandlerMethod = (events: readonly DeliveredEvent[], context: JetStreamContext) => Promise<BatchOutcomes | void>;

/**
 * Marks a controller method as the consumer of a durable (a typed `@EventPattern`): it receives
 * the delivered event and the event is acked once it resolves — after its commit — or nak'ed with
 * a backoff when it throws, until `maxDeliver`. With `batch`, it receives the events of a batch
 * and resolves with their outcomes (see {@link BatchOutcomes}). Its error reaches the transport as
 * thrown (no Nest exception mapping).
 */
export function EventConsumer(subscription: EventSubscription, delivery: EventDelivery & { batch: number }): <H extends BatchHandlerMethod>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>) => void;
export function EventConsumer(subscription: EventSubscription, delivery?: EventDelivery & { batch?: undefined }): <H extends SingleHandler>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>) => void;
export function EventConsumer(subscription: EventSubscription, delivery: EventDelivery = {}) {
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor): void => {
    applyDecorators(EventPattern(subscription, { jetstream: { subscription, delivery } }), UseFilters(RpcErrorPassthrough))(target, key, descriptor);
  };
}

interface Registered {
  subscription: EventSubscription;
  delivery: EventDelivery;
  handler: MessageHandler;
}

/** Awaits a Nest handler proxy's result: its value, or the error an erroring observable carries. */
async function settled(result: unknown): Promise<unknown> {
  const value = await result;
  return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
}

/**
 * The JetStream transport strategy for events: each `@EventConsumer` method gets its durable pull
 * consumer (explicit acks) on its region stream, filtered by its event types. Each delivered event
 * is handled inside its consumer span (a child of the publisher's, from the message headers); it
 * is acked only after the handler resolved and nak'ed with a backoff when it failed, until
 * `maxDeliver`. Handlers must be idempotent: the persistence inbox (`markProcessed`) makes them so.
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  private readonly registered: Registered[] = [];
  private readonly consumers: Array<DurableConsumer | BatchConsumer> = [];

  constructor(
    private readonly bus: BusConnection,
    private readonly consumerLogger: ConsumerLogger,
  ) {
    super();
  }

  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const jetstream = extras['jetstream'] as { subscription: EventSubscription; delivery: EventDelivery } | undefined;
    if (isEventHandler && jetstream) this.registered.push({ ...jetstream, handler: callback });
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  /** Opens every handler's durable and starts delivering; a durable that cannot be opened fails the start. */
  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      for (const { subscription, delivery, handler } of this.registered) await this.open(subscription, delivery, handler);
      callback();
    } catch (error) {
      callback(error);
    }
  }

  private async open(subscription: EventSubscription, delivery: EventDelivery, handler: MessageHandler): Promise<void> {
    const region = subscription.region ?? this.bus.region;
    const settings = {
      durable: subscription.durable,
      filterSubject: eventSubject(this.bus.prefix, region, subscription.types),
      streamRegion: region,
      maxDeliver: delivery.maxDeliver,
      ackWaitMs: delivery.ackWaitMs,
    };
    const context = new JetStreamContext([subscription.durable]);
    if (delivery.batch !== undefined) {
      const consumer = new BatchConsumer(this.bus, { ...settings, maxBatch: delivery.batch }, (error, events) =>
        this.consumerLogger.error('event handler failed; will redeliver', {
          durable: subscription.durable,
          eventIds: events.map((e) => e.id),
          error: error instanceof Error ? error.message : String(error),
        }),
      );
      this.consumers.push(consumer);
      await consumer.start(async (events) => (await settled(handler(events, context))) as BatchOutcomes | void);
    } else {
      const consumer = new DurableConsumer(this.bus, settings, this.consumerLogger);
      this.consumers.push(consumer);
      await consumer.start(async (event) => {
        await settled(handler(event, context));
      });
    }
  }

  /** Stops every durable's delivery and waits for the events in hand; the connection belongs to the process. */
  async close(): Promise<void> {
    await Promise.all(this.consumers.splice(0).map((consumer) => consumer.stop()));
  }

  on(): never {
    throw new Error('JetStreamServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.bus.nc as T;
  }
}

/** Running `@EventConsumer` controllers outside an HTTP process (see {@link serveEvents}). */
export interface EventService {
  server: JetStreamServer;
  close(): Promise<void>;
}

/** Serves the `@EventConsumer` methods of the given controllers on the bus as a standalone NestJS microservice. */
export async function serveEvents(bus: BusConnection, controllers: Type[], providers: Provider[] = [], logger: ConsumerLogger = { error: () => undefined }): Promise<EventService> {
  @Module({ controllers, providers })
  class EventServiceModule {}
  const server = new JetStreamServer(bus, logger);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(EventServiceModule, { strategy: server, logger: false });
  await app.listen();
  return { server, close: () => app.close() };
}
