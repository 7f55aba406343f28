import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from 'nats';
import { regionStreamName } from '@svc/contracts';
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { SpanKind, contextWithRemoteParent, startSpan, traceCarrierOf, type TraceCarrier } from '@svc/telemetry';
import type { BusConnection } from './bus-connection';
import { NANOS_PER_MS } from './streams';
import { messagingAttributes, traceOfHeaders } from './trace-headers';

export interface DeliveredEvent {
  /** The publisher's Nats-Msg-Id: the key consumers deduplicate by. */
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

/** Where consumers report handler failures. */
export interface ConsumerLogger {
  error(message: string, context: Record<string, unknown>): void;
}

/** Settings of a durable pull consumer on the region stream. */
export interface PullConsumerSettings {
  /** Durable name, unique per consuming service. */
  durable: string;
  /** Subject filter inside the region stream, e.g. `svc.us.evt.consent.>`. */
  filterSubject: string;
  /** Deliveries before JetStream gives up on a message (bounded redelivery); -1 never gives up. Default 10. */
  maxDeliver?: number;
  /** How long a delivery may stay unacknowledged before JetStream redelivers it, ms. Default 30 000. */
  ackWaitMs?: number;
  /** Region whose stream the durable reads: the bus's own by default (another region's for a replica). */
  streamRegion?: string;
}

/**
 * Creates the durable explicit-ack consumer, or brings an existing one's redelivery settings up to
 * date (the filter subject of an existing consumer is left as it is), and returns it.
 */
export async function openDurable(bus: BusConnection, settings: PullConsumerSettings): Promise<Consumer> {
  const stream = regionStreamName(bus.prefix, settings.streamRegion ?? bus.region);
  const maxDeliver = settings.maxDeliver ?? 10;
  const ackWait = (settings.ackWaitMs ?? 30_000) * NANOS_PER_MS;
  try {
    await bus.jsm.consumers.info(stream, settings.durable);
    await bus.jsm.consumers.update(stream, settings.durable, { max_deliver: maxDeliver, ack_wait: ackWait });
  } catch {
    await bus.jsm.consumers.add(stream, {
      durable_name: settings.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      filter_subject: settings.filterSubject,
      max_deliver: maxDeliver,
      ack_wait: ackWait,
    });
  }
  bus.durables.add(settings.durable);
  return bus.js.consumers.get(stream, settings.durable);
}

/** The event a JetStream message carries. */
export function deliveredEventOf(msg: JsMsg): DeliveredEvent {
  return {
    id: msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}:${msg.seq}`,
    subject: msg.subject,
    eventType: msg.headers?.get('Svc-Event-Type') ?? '',
    data: msg.data,
    deliveryCount: msg.info.redeliveryCount,
    trace: traceOfHeaders(msg.headers),
  };
}

/**
 * Opens the consumer span of one delivered event, as a child of the span that published it, and
 * points the event's `trace` at it. The caller ends the span once the event is acked or nak'ed.
 */
export function startProcessSpan(event: DeliveredEvent, durable: string): Span {
  const span = startSpan(`${event.eventType || event.subject} process`, {
    kind: SpanKind.CONSUMER,
    parent: contextWithRemoteParent(event.trace, ROOT_CONTEXT),
    attributes: { ...messagingAttributes(event.subject, event.id), 'messaging.consumer.group.name': durable, 'messaging.message.delivery_count': event.deliveryCount },
  });
  if (span.isRecording()) event.trace = traceCarrierOf(trace.setSpan(ROOT_CONTEXT, span)) ?? event.trace;
  return span;
}


/** Backoff before redelivering a failed delivery: 1 s, 2 s, 4 s ... up to 30 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 500 * 2 ** Math.min(deliveryCount, 6));
}
