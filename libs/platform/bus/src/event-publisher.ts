import { ROOT_CONTEXT } from '@opentelemetry/api';
import { SpanKind, contextWithRemoteParent, inSpan, type TraceCarrier } from '@svc/telemetry';
import { headers as natsHeaders, type PubAck } from 'nats';
import type { BusConnection } from './bus-connection';
import { injectTrace, messagingAttributes } from './trace-headers';

export interface OutgoingEvent {
  /** Stable id: the outbox row id; JetStream drops a duplicate inside its dedupe window. */
  id: string;
  subject: string;
  data: Uint8Array;
  eventType: string;
  /** Trace the event belongs to (the request that wrote it); the active one when absent. */
  trace?: TraceCarrier;
}

/**
 * Publishes to JetStream with many acks in flight and `Nats-Msg-Id` set to the event id. Each
 * publish is a producer span under the event's trace, whose context travels in the W3C
 * `traceparent`/`tracestate` headers to the consumers.
 */
export class EventPublisher {
  constructor(private readonly bus: BusConnection) {}

  async publish(event: OutgoingEvent): Promise<PubAck> {
    const parent = event.trace ? contextWithRemoteParent(event.trace, ROOT_CONTEXT) : undefined;
    return inSpan(
      `${event.eventType} publish`,
      { kind: SpanKind.PRODUCER, parent, attributes: messagingAttributes(event.subject, event.id) },
      () => {
        const h = natsHeaders();
        h.set('Svc-Event-Type', event.eventType);
        injectTrace(h);
        return this.bus.js.publish(event.subject, event.data, { msgID: event.id, headers: h });
      },
    );
  }

  /** Publishes a batch concurrently; resolves once every ack is in, rejects on the first failure. */
  async publishAll(events: readonly OutgoingEvent[]): Promise<PubAck[]> {
    return Promise.all(events.map((event) => this.publish(event)));
  }
}
