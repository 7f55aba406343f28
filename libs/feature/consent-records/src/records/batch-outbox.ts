import { randomUUID } from 'node:crypto';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EVENTS, EventMetaSchema, encodeEvent, type EventType, type PersonalDataSeal } from '@svc/contracts';
import { traceIdOf, type TraceCarrier } from '@svc/telemetry';

type EventInit<T extends EventType> = Omit<MessageInitShape<(typeof EVENTS)[T]['schema']>, 'meta' | '$typeName'>;

/** One event of a batch, encoded exactly as @svc/persistence's OutboxWriter encodes it. */
export interface BatchEvent<T extends EventType = EventType> {
  type: T;
  init: EventInit<T>;
  applicationId: string;
  occurredAt: Date;
  /** Trace of the request behind the event, stored with its row for the relay. */
  trace?: TraceCarrier;
}

/**
 * Encodes a batch's events into outbox rows (id, event_type, payload) — the same rows as
 * OutboxWriter.add, so the relay publishes them unchanged — for ONE multi-row insert inside the
 * caller's transaction instead of two statements per event. Personal fields are sealed as
 * OutboxWriter seals them, with the trace context OutboxWriter stores.
 */
export function encodeEvents(
  region: string,
  events: readonly BatchEvent[],
  personalData: PersonalDataSeal | undefined,
): { ids: string[]; types: string[]; payloads: Buffer[]; traceParents: Array<string | null>; traceStates: Array<string | null> } {
  const ids: string[] = [];
  const types: string[] = [];
  const payloads: Buffer[] = [];
  const traceParents: Array<string | null> = [];
  const traceStates: Array<string | null> = [];
  for (const event of events) {
    const id = randomUUID();
    const spec = EVENTS[event.type];
    const meta = create(EventMetaSchema, {
      eventId: id,
      eventType: event.type,
      schemaVersion: spec.version,
      region,
      applicationId: event.applicationId,
      occurredAt: timestampFromDate(event.occurredAt),
      traceId: traceIdOf(event.trace),
    });
    const message = create(spec.schema, { ...(event.init as object), meta } as never);
    ids.push(id);
    types.push(event.type);
    payloads.push(Buffer.from(encodeEvent(spec.schema, message as never, personalData)));
    traceParents.push(event.trace?.traceparent ?? null);
    traceStates.push(event.trace?.tracestate ?? null);
  }
  return { ids, types, payloads, traceParents, traceStates };
}
