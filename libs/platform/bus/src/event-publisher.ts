import { headers as natsHeaders, type PubAck } from 'nats';
import type { BusConnection } from './bus-connection';

export interface OutgoingEvent {
  /** Stable id: the outbox row id; JetStream drops a duplicate inside its dedupe window. */
  id: string;
  subject: string;
  data: Uint8Array;
  eventType: string;
}

/** Publishes to JetStream with many acks in flight and `Nats-Msg-Id` set to the event id. */
export class EventPublisher {
  constructor(private readonly bus: BusConnection) {}

  async publish(event: OutgoingEvent): Promise<PubAck> {
    const h = natsHeaders();
    h.set('Svc-Event-Type', event.eventType);
    return this.bus.js.publish(event.subject, event.data, { msgID: event.id, headers: h });
  }

  /** Publishes a batch concurrently; resolves once every ack is in, rejects on the first failure. */
  async publishAll(events: readonly OutgoingEvent[]): Promise<PubAck[]> {
    return Promise.all(events.map((event) => this.publish(event)));
  }
}
