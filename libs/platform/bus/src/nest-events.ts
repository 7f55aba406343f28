import { Module, UseFilters, applyDecorators, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  BaseRpcContext,
  EventPattern,
  Server,
  type CustomTransportStrategy,
  type MessageHandler,
  type MicroserviceOptions,
} from '@nestjs/microservices';
import { ROOT_CONTEXT, context, trace, type Span } from '@opentelemetry/api';
import { deadLetterSubject, eventSubject, regionStreamName, type EventType } from '@svc/contracts';
import { SpanKind, contextWithRemoteParent, recordFailure, startSpan, traceCarrierOf, type TraceCarrier } from '@svc/telemetry';
import { faultPoint } from '@svc/config';
import { AckPolicy, DeliverPolicy, headers as natsHeaders, type ConsumerMessages, type JsMsg, type Msg, type MsgHdrs } from 'nats';
import { isObservable, lastValueFrom } from 'rxjs';
import type { BusConnection } from './bus-connection';
import { RpcErrorPassthrough } from './nest-rpc';
import { NANOS_PER_MS } from './streams';
import { messagingAttributes, traceOfHeaders } from './trace-headers';

/** The area of an event type (`consent` of `consent.recorded`). */
type AreaOf<T extends string> = T extends `${infer Area}.${string}` ? Area : never;

/**
 * What a consumer reads, checked against the contracts: one event type, every type of an area
 * (`approval.>`), or every event of the region (`>`).
 */
export type EventTypeFilter = EventType | `${AreaOf<EventType>}.>` | '>';

/** What an `@EventConsumer` subscribes: a durable of its own on a region stream, filtered by event type. */
export interface EventSubscription {
  /** Durable name, unique per consuming service. */
  durable: string;
  types: EventTypeFilter;
  /**
   * Region whose stream the durable reads (its events' subjects are that region's): the bus's own
   * by default; another region's for a replica of its events. The durable of another region is
   * opened once that region's stream exists (it appears when the region first boots), without
   * holding up the start.
   */
  region?: string;
}

/** Resolves a provider of the process (a feature's config, say) for subscriptions decided at start. */
export type ProviderLookup = <T>(type: Type<T>) => T;

/**
 * The durables of one handler: one subscription, several (each a durable of its own, all handled
 * by the same method), or a function of the process's providers deciding them at start (none, for
 * a consumer its configuration switches off).
 */
export type EventSubscriptions =
  EventSubscription | readonly EventSubscription[] | ((lookup: ProviderLookup) => EventSubscription | readonly EventSubscription[]);

/** How the durable delivers. */
export interface EventDelivery {
  /**
   * Deliveries before the event is dead-lettered (see {@link JetStreamServer}); -1 never gives up,
   * for consumers whose handler throws only on transient failures and must never drop an event.
   * Default 10.
   */
  maxDeliver?: number;
  /** How long a delivery may stay unacknowledged before it is redelivered, ms. Default 30 000. */
  ackWaitMs?: number;
  /**
   * A one-by-one consumer's events of `types` handled up to `limit` at once, each acked on its own
   * (default: every event in stream order). Only for types whose effects do not depend on each
   * other's order; an event of any other type waits for everything before it and runs alone, so
   * it keeps its place (e.g. a withdrawal after the record it withdraws).
   */
  concurrency?: { limit: number; types: readonly string[] };
}

/** How a batch durable delivers. */
export interface EventBatchDelivery extends EventDelivery {
  /**
   * Most events handed over at once: the handler receives every event that arrived while the
   * previous batch was being handled, up to this many, for a group commit. Default 256.
   */
  batch?: number;
}

/** The event a JetStream message carries, as a consumer receives it. */
export interface DeliveredEvent {
  /** The publisher's Nats-Msg-Id: the key consumers deduplicate by (their inbox). */
  id: string;
  subject: string;
  eventType: string;
  data: Uint8Array;
  /** 1 on first delivery, higher on redelivery. */
  deliveryCount: number;
  /**
   * Trace to continue this event's work under: the consumer's span for it (a child of the
   * publisher's), or the publisher's context when no tracer is registered. Store it with work
   * done later (e.g. a webhook delivery) so that work joins the same trace.
   */
  trace?: TraceCarrier;
}

/**
 * How a batch went, event by event (same order as the batch): a fulfilled entry is acked, a
 * rejected one nak'ed for redelivery. `Promise.allSettled` over the events yields exactly this.
 */
export type BatchOutcomes = ReadonlyArray<PromiseSettledResult<unknown>>;

/**
 * Handles a batch's events one after another, in delivery order, each settling on its own: for a
 * consumer whose work is per event (and usually nothing), a batch only shares the delivery — one
 * ack write for the batch instead of one per event.
 */
export async function eachInOrder(
  events: readonly DeliveredEvent[],
  handle: (event: DeliveredEvent) => Promise<unknown>,
): Promise<BatchOutcomes> {
  const outcomes: Array<PromiseSettledResult<unknown>> = [];
  for (const event of events) {
    try {
      outcomes.push({ status: 'fulfilled', value: await handle(event) });
    } catch (reason) {
      outcomes.push({ status: 'rejected', reason });
    }
  }
  return outcomes;
}

/** Where the transport reports handler failures and dead letters. */
export interface ConsumerLogger {
  error(message: string, context: Record<string, unknown>): void;
}

/** Told of every dead letter (the process counts them: `bus_dead_letters_total`, an alert). */
export interface DeadLetterObserver {
  deadLettered(durable: string): void;
}

/**
 * The context a consumer method may take (`@Ctx()`, with `@Payload()` on the event): the durable
 * and region that delivered the event. Without parameter decorators a method receives the event only.
 */
export class JetStreamContext extends BaseRpcContext<[string, string]> {
  /** The durable that delivered the event (empty for a fan-out subscription). */
  getDurable(): string {
    return this.args[0];
  }

  /** The region whose stream delivered the event. */
  getRegion(): string {
    return this.args[1];
  }
}

type SingleHandlerMethod = (event: DeliveredEvent, context: JetStreamContext) => Promise<unknown>;
type BatchHandlerMethod = (events: readonly DeliveredEvent[], context: JetStreamContext) => Promise<BatchOutcomes | void>;
type MethodDecorator<Handler> = <H extends Handler>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<H>) => void;

type Kind = 'single' | 'batch' | 'fanout';

interface JetStreamExtras {
  kind: Kind;
  subscriptions: EventSubscriptions;
  delivery: EventBatchDelivery;
}

function consumerDecorator(kind: Kind, subscriptions: EventSubscriptions, delivery: EventBatchDelivery) {
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor): void => {
    const pattern = `jetstream:${kind}:${target.constructor.name}.${String(key)}`;
    const jetstream: JetStreamExtras = { kind, subscriptions, delivery };
    applyDecorators(EventPattern(pattern, { jetstream }), UseFilters(RpcErrorPassthrough))(target, key, descriptor);
  };
}

/**
 * Marks a controller method as the consumer of one or more durables (a typed `@EventPattern`): it
 * receives each delivered event, and the event is acked once it resolves — after its commit — or
 * nak'ed with a backoff when it throws, until `maxDeliver`. Its error reaches the transport as
 * thrown (no Nest exception mapping). The handler must be idempotent: the persistence inbox
 * (`processOnce`, `markProcessed`) makes it so.
 */
export function EventConsumer(subscriptions: EventSubscriptions, delivery: EventDelivery = {}): MethodDecorator<SingleHandlerMethod> {
  return consumerDecorator('single', subscriptions, delivery);
}

/**
 * Marks a controller method as the batch consumer of one or more durables: it receives the events
 * buffered while its previous batch was handled (up to `batch`) and resolves with their outcomes
 * (see {@link BatchOutcomes}); resolving with nothing acks them all, throwing naks them all. For
 * group commits: the throughput path of consumers that write many events at once.
 */
export function EventBatchConsumer(
  subscriptions: EventSubscriptions,
  delivery: EventBatchDelivery = {},
): MethodDecorator<BatchHandlerMethod> {
  return consumerDecorator('batch', subscriptions, delivery);
}

/**
 * Marks a controller method as a fan-out listener of this region's events of a type: every
 * process running it receives every event published from now on (a plain NATS subscription on the
 * event subject: no durable, no ack, no redelivery). For cache invalidation that every holder
 * must see and whose expiry covers a missed message; never for work that must happen once.
 */
export function EventFanout(types: EventTypeFilter): MethodDecorator<SingleHandlerMethod> {
  return consumerDecorator('fanout', { durable: '', types }, {});
}

interface Registered extends JetStreamExtras {
  handler: MessageHandler;
}

/** A running subscription: stop asks it to end; done resolves once the events in hand are settled. */
interface Running {
  stop(): void;
  done: Promise<void>;
  /** The durable's subscription, to open it again after a hold; absent for a fan-out. */
  durable?: { subscription: EventSubscription; region: string; registered: Registered };
}

/** Awaits a Nest handler proxy's result: its value, or the error an erroring observable carries. */
async function settled(result: unknown): Promise<unknown> {
  const value = await result;
  return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
}

/** Backoff before redelivering a failed delivery: 1 s, 2 s, 4 s ... up to 30 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(deliveryCount, 6));
}

/** Wait before trying again to open a durable on another region's stream. */
const FOREIGN_STREAM_RETRY_MS = 2_000;
const DEFAULT_MAX_DELIVER = 10;

function eventOf(
  subject: string,
  headers: MsgHdrs | undefined,
  data: Uint8Array,
  fallbackId: string,
  deliveryCount: number,
): DeliveredEvent {
  return {
    id: headers?.get('Nats-Msg-Id') || fallbackId,
    subject,
    eventType: headers?.get('Svc-Event-Type') ?? '',
    data,
    deliveryCount,
    trace: traceOfHeaders(headers),
  };
}

function deliveredEventOf(msg: JsMsg): DeliveredEvent {
  return eventOf(msg.subject, msg.headers, msg.data, `${msg.info.stream}:${msg.seq}`, msg.info.redeliveryCount);
}

/**
 * Opens the consumer span of one delivered event, as a child of the span that published it, and
 * points the event's `trace` at it. The caller ends the span once the event is acked or nak'ed.
 */
function startProcessSpan(event: DeliveredEvent, durable: string): Span {
  const span = startSpan(`${event.eventType || event.subject} process`, {
    kind: SpanKind.CONSUMER,
    parent: contextWithRemoteParent(event.trace, ROOT_CONTEXT),
    attributes: {
      ...messagingAttributes(event.subject, event.id),
      'messaging.consumer.group.name': durable,
      'messaging.message.delivery_count': event.deliveryCount,
    },
  });
  if (span.isRecording()) event.trace = traceCarrierOf(trace.setSpan(ROOT_CONTEXT, span)) ?? event.trace;
  return span;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The JetStream transport strategy for events, the one way this codebase consumes them. Each
 * `@EventConsumer` / `@EventBatchConsumer` method gets a durable pull consumer (explicit acks) per
 * subscription on its region stream, filtered by its event types; each `@EventFanout` method a
 * plain subscription.
 *
 * - Each delivered event is handled inside its consumer span (a child of the publisher's, from the
 *   message headers); a batch handler gets each event's span context as `event.trace`.
 * - An event is acked only after its handler resolved (after the handler's commit), and nak'ed with
 *   a backoff when it failed.
 * - Dead letters: a failure on the last delivery `maxDeliver` allows copies the event to the
 *   dead-letter subject `<prefix>.<region>.dlq.<durable>` (kept 30 days by the region's dead-letter
 *   stream, with its original headers plus `Svc-Dead-Letter-Durable`, `-Stream`, `-Stream-Sequence`,
 *   `-Deliveries`, `-Error`), terminates the message, logs it and tells the
 *   {@link DeadLetterObserver} (the `bus_dead_letters_total` counter). The event also stays in the
 *   region stream for its retention, to be replayed once the cause is fixed; no later event of the
 *   durable waits for it (the poison event backs off between deliveries, the others flow).
 * - Handlers must be idempotent: the persistence inbox makes them so (a redelivery after the
 *   publish dedupe window is still applied once).
 */
export class JetStreamServer extends Server implements CustomTransportStrategy {
  private readonly registered: Registered[] = [];
  private readonly running: Running[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private lookup: ProviderLookup = () => {
    throw new Error('JetStreamServer: no provider lookup for subscriptions decided at start');
  };
  private stopped = false;

  constructor(
    private readonly bus: BusConnection,
    private readonly consumerLogger: ConsumerLogger,
    private readonly deadLetters?: DeadLetterObserver,
  ) {
    super();
  }

  /** Where subscriptions decided at start find the process's providers. */
  resolveWith(lookup: ProviderLookup): void {
    this.lookup = lookup;
  }

  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    const jetstream = extras['jetstream'] as JetStreamExtras | undefined;
    if (isEventHandler && jetstream) this.registered.push({ ...jetstream, handler: callback });
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  /** Opens every handler's durables and starts delivering; a durable of this region that cannot be opened fails the start. */
  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      this.stopped = false;
      for (const registered of this.registered) {
        if (registered.kind === 'fanout') {
          this.fanOut(registered);
          continue;
        }
        const decided = typeof registered.subscriptions === 'function' ? registered.subscriptions(this.lookup) : registered.subscriptions;
        const subscriptions: readonly EventSubscription[] = Array.isArray(decided) ? decided : [decided as EventSubscription];
        for (const subscription of subscriptions) {
          const region = subscription.region ?? this.bus.region;
          if (region === this.bus.region) await this.open(subscription, region, registered);
          else this.openWhenStreamExists(subscription, region, registered);
        }
      }
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Stops every delivery and waits for the events in hand; the connection belongs to the process. */
  async close(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const running = this.running.splice(0);
    for (const r of running) r.stop();
    await Promise.all(running.map((r) => r.done.catch(() => undefined)));
  }

  /**
   * Holds a durable back: its delivery stops (events wait in the stream, a pulled but unhandled
   * one comes back after the ack wait) until the returned function opens it again. For tests of
   * what a service does before a consumer has caught up.
   */
  async hold(durable: string): Promise<() => Promise<void>> {
    const held = this.running.filter((r) => r.durable?.subscription.durable === durable);
    if (held.length === 0) throw new Error(`JetStreamServer: no running durable ${durable}`);
    for (const r of held) {
      this.running.splice(this.running.indexOf(r), 1);
      r.stop();
    }
    await Promise.all(held.map((r) => r.done.catch(() => undefined)));
    return async () => {
      for (const { durable: d } of held) if (d) await this.open(d.subscription, d.region, d.registered);
    };
  }

  on(): never {
    throw new Error('JetStreamServer has no events to listen to');
  }

  unwrap<T>(): T {
    return this.bus.nc as T;
  }

  /** Another region's stream appears when that region first boots: try again until it does. */
  private openWhenStreamExists(subscription: EventSubscription, region: string, registered: Registered): void {
    if (this.stopped) return;
    this.open(subscription, region, registered).catch((error: unknown) => {
      if (this.stopped) return;
      if (!/stream not found/i.test(messageOf(error))) {
        this.consumerLogger.error('durable on another region not open yet; retrying', {
          durable: subscription.durable,
          region,
          error: messageOf(error),
        });
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.openWhenStreamExists(subscription, region, registered);
      }, FOREIGN_STREAM_RETRY_MS);
      timer.unref();
      this.timers.add(timer);
    });
  }

  /**
   * Creates the durable explicit-ack consumer, or brings an existing one's redelivery settings up
   * to date (the filter subject of an existing consumer is left as it is), and starts delivering.
   */
  private async open(subscription: EventSubscription, region: string, registered: Registered): Promise<void> {
    const { durable } = subscription;
    const stream = regionStreamName(this.bus.prefix, region);
    const maxDeliver = registered.delivery.maxDeliver ?? DEFAULT_MAX_DELIVER;
    const ackWait = (registered.delivery.ackWaitMs ?? 30_000) * NANOS_PER_MS;
    try {
      await this.bus.jsm.consumers.info(stream, durable);
      await this.bus.jsm.consumers.update(stream, durable, { max_deliver: maxDeliver, ack_wait: ackWait });
    } catch (error) {
      if (!/consumer not found/i.test(messageOf(error))) throw error;
      await this.bus.jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: eventSubject(this.bus.prefix, region, subscription.types),
        max_deliver: maxDeliver,
        ack_wait: ackWait,
      });
    }
    if (region === this.bus.region) this.bus.durables.add(durable);
    const consumer = await this.bus.js.consumers.get(stream, durable);
    const batch = registered.kind === 'batch' ? (registered.delivery.batch ?? 256) : 0;
    const messages = await consumer.consume({ max_messages: batch > 0 ? batch * 2 : 256 });
    if (this.stopped) {
      messages.stop();
      return;
    }
    const delivery = new Delivery(
      durable,
      maxDeliver,
      new JetStreamContext([durable, region]),
      registered.handler,
      this.consumerLogger,
      this.bus,
      this.deadLetters,
    );
    const done = batch > 0 ? delivery.inBatches(messages, batch) : delivery.oneByOne(messages, registered.delivery.concurrency);
    this.running.push({ stop: () => messages.stop(), done, durable: { subscription, region, registered } });
  }

  /** A plain subscription on this region's event subject: every process gets every event, unacknowledged. */
  private fanOut(registered: Registered): void {
    const { types } = registered.subscriptions as EventSubscription;
    const subject = eventSubject(this.bus.prefix, this.bus.region, types);
    const context = new JetStreamContext(['', this.bus.region]);
    let inFlight = Promise.resolve();
    const subscription = this.bus.nc.subscribe(subject, {
      callback: (error, msg: Msg) => {
        if (error) return;
        const event = eventOf(msg.subject, msg.headers, msg.data, `${msg.subject}:${msg.sid}`, 1);
        inFlight = inFlight.then(async () => {
          try {
            await settled(registered.handler(event, context));
          } catch (handlerError) {
            this.consumerLogger.error('event listener failed', {
              subject: event.subject,
              eventId: event.id,
              error: messageOf(handlerError),
            });
          }
        });
      },
    });
    this.running.push({ stop: () => subscription.unsubscribe(), done: subscription.closed.then(() => inFlight) });
  }
}

/** The delivery loop of one durable: hands its messages to the handler, acks, naks or dead-letters each. */
class Delivery {
  constructor(
    private readonly durable: string,
    private readonly maxDeliver: number,
    private readonly context: JetStreamContext,
    private readonly handler: MessageHandler,
    private readonly logger: ConsumerLogger,
    private readonly bus: BusConnection,
    private readonly deadLetters: DeadLetterObserver | undefined,
  ) {}

  async oneByOne(messages: ConsumerMessages, concurrency?: EventDelivery['concurrency']): Promise<void> {
    if (!concurrency || concurrency.limit <= 1) {
      for await (const msg of messages) await this.one(msg);
      return;
    }
    // `one` settles every message itself (ack, nak or dead letter) and never throws.
    const running = new Set<Promise<void>>();
    for await (const msg of messages) {
      if (!concurrency.types.includes(deliveredEventOf(msg).eventType)) {
        await Promise.all(running);
        await this.one(msg);
        continue;
      }
      const handled: Promise<void> = this.one(msg).finally(() => running.delete(handled));
      running.add(handled);
      if (running.size >= concurrency.limit) await Promise.race(running);
    }
    await Promise.all(running);
  }

  /** Hands over everything buffered, a batch at a time; messages arriving meanwhile form the next batch. */
  async inBatches(messages: ConsumerMessages, maxBatch: number): Promise<void> {
    const buffer: JsMsg[] = [];
    let draining: Promise<void> | undefined;
    const drain = async (): Promise<void> => {
      while (buffer.length > 0) await this.batch(buffer.splice(0, maxBatch));
    };
    for await (const msg of messages) {
      buffer.push(msg);
      draining ??= drain().finally(() => {
        draining = undefined;
      });
    }
    await draining;
  }

  private async one(msg: JsMsg): Promise<void> {
    const event = deliveredEventOf(msg);
    const span = startProcessSpan(event, this.durable);
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), () => settled(this.handler(event, this.context)));
      faultPoint('consumer.after-effect');
      msg.ack();
    } catch (error) {
      recordFailure(span, error);
      await this.fail(msg, event, error, redeliveryDelayMs(event.deliveryCount));
    } finally {
      span.end();
    }
  }

  private async batch(batch: JsMsg[]): Promise<void> {
    const events = batch.map(deliveredEventOf);
    const spans = events.map((event) => startProcessSpan(event, this.durable));
    let outcomes: BatchOutcomes | void;
    try {
      outcomes = (await settled(this.handler(events, this.context))) as BatchOutcomes | void;
    } catch (error) {
      // The batch comes back together, after the backoff its most redelivered event has earned.
      const delay = redeliveryDelayMs(Math.max(...events.map((e) => e.deliveryCount)));
      await Promise.all(
        batch.map(async (msg, i) => {
          recordFailure(spans[i]!, error);
          await this.fail(msg, events[i]!, error, delay);
          spans[i]!.end();
        }),
      );
      return;
    }
    faultPoint('consumer.after-effect');
    await Promise.all(
      batch.map(async (msg, i) => {
        const outcome = outcomes?.[i];
        if (outcome?.status === 'rejected') {
          recordFailure(spans[i]!, outcome.reason);
          await this.fail(msg, events[i]!, outcome.reason, redeliveryDelayMs(events[i]!.deliveryCount));
        } else {
          msg.ack();
        }
        spans[i]!.end();
      }),
    );
  }

  private copyToDeadLetters(msg: JsMsg, event: DeliveredEvent, error: string): Promise<boolean> {
    return copyToDeadLettersOf(this.bus, this.durable, msg, event, error);
  }

  /** Naks a failed delivery for redelivery, or dead-letters it when it was the last one allowed. */
  private async fail(msg: JsMsg, event: DeliveredEvent, error: unknown, delayMs: number): Promise<void> {
    const details = {
      durable: this.durable,
      subject: event.subject,
      eventId: event.id,
      deliveryCount: event.deliveryCount,
      error: messageOf(error),
    };
    if (this.maxDeliver > 0 && event.deliveryCount >= this.maxDeliver) {
      const copied = await this.copyToDeadLetters(msg, event, details.error);
      msg.term();
      this.deadLetters?.deadLettered(this.durable);
      this.logger.error('event dead-lettered: its handler failed on the last delivery allowed', {
        ...details,
        stream: msg.info.stream,
        streamSequence: msg.seq,
        deadLetterSubject: deadLetterSubject(this.bus.prefix, this.bus.region, this.durable),
        ...(copied ? {} : { deadLetterCopy: 'failed' }),
      });
      return;
    }
    this.logger.error('event handler failed; will redeliver', details);
    msg.nak(delayMs);
  }
}

/**
 * Publishes a dead letter: the event's bytes and headers, plus where and why it died, on this
 * process's region dead-letter subject (deduplicated per event and durable). False when the bus
 * refused it (the event still stays in the region stream).
 */
async function copyToDeadLettersOf(
  bus: BusConnection,
  durable: string,
  msg: JsMsg,
  event: DeliveredEvent,
  error: string,
): Promise<boolean> {
  const hdrs = natsHeaders();
  for (const [key, values] of msg.headers ?? []) for (const value of values) hdrs.append(key, value);
  hdrs.set('Svc-Dead-Letter-Durable', durable);
  hdrs.set('Svc-Dead-Letter-Stream', msg.info.stream);
  hdrs.set('Svc-Dead-Letter-Stream-Sequence', String(msg.seq));
  hdrs.set('Svc-Dead-Letter-Deliveries', String(event.deliveryCount));
  hdrs.set('Svc-Dead-Letter-Error', error.replace(/[\r\n]+/g, ' ').slice(0, 200));
  try {
    await bus.js.publish(deadLetterSubject(bus.prefix, bus.region, durable), msg.data, { headers: hdrs, msgID: `${event.id}:${durable}` });
    return true;
  } catch {
    return false;
  }
}

/** Running consumer controllers outside an HTTP process (see {@link serveEvents}). */
export interface EventService {
  server: JetStreamServer;
  close(): Promise<void>;
}

/** Serves the consumer methods of the given controllers on the bus as a standalone NestJS microservice. */
export async function serveEvents(
  bus: BusConnection,
  controllers: Type[],
  providers: Provider[] = [],
  logger: ConsumerLogger = { error: () => undefined },
  deadLetters?: DeadLetterObserver,
): Promise<EventService> {
  @Module({ controllers, providers })
  class EventServiceModule {}
  const server = new JetStreamServer(bus, logger, deadLetters);
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(EventServiceModule, { strategy: server, logger: false });
  server.resolveWith((type) => app.get(type, { strict: false }));
  await app.listen();
  return { server, close: () => app.close() };
}
