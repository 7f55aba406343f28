import { randomUUID } from 'node:crypto';
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EVENTS, EventMetaSchema, encodeEvent, type EventType, type PersonalDataSeal } from '@svc/contracts';
import { traceCarrierOf, traceIdOf, type TraceCarrier } from '@svc/telemetry';
import type { EntityManager } from 'typeorm';
import type { WritePart } from './combined-write';

type EventInit<T extends EventType> = Omit<MessageInitShape<(typeof EVENTS)[T]['schema']>, 'meta' | '$typeName'>;

export interface EventContext {
  applicationId?: string;
  /** Trace the event continues; the active span's (the request writing it) by default. */
  trace?: TraceCarrier;
  occurredAt?: Date;
}

/**
 * Writes events into a service's outbox inside the caller's transaction, so the business row and
 * its event commit (or roll back) together. The relay publishes them after commit, under the
 * trace context stored with each row (and named by the event's `meta.trace_id`).
 */
export class OutboxWriter {
  constructor(
    private readonly schema: string,
    private readonly region: string,
    private readonly onEnqueued: () => void = () => undefined,
    /** Seals personal fields; without it, an event carrying any is refused rather than written in clear. */
    private readonly personalData?: PersonalDataSeal,
  ) {}

  /** Inserts one event (one round trip, with the relay's notification); returns its id (the future Nats-Msg-Id). */
  async add<T extends EventType>(manager: EntityManager, type: T, init: EventInit<T>, context: EventContext = {}): Promise<string> {
    const [id] = await this.addMany(manager, [{ type, init, context } as PendingEvent]);
    return id!;
  }

  /**
   * Inserts several events in one statement and wakes the relay once (group commit of a hot write
   * path); returns their ids in order.
   */
  async addMany(manager: EntityManager, events: ReadonlyArray<PendingEvent>): Promise<string[]> {
    if (events.length === 0) return [];
    const { ids, insert, notify, params } = this.batchInsert(events, 1);
    // One round trip: the insert runs as a data-modifying CTE beside the notification.
    await manager.query(`WITH inserted AS (${insert}) ${notify}`, params);
    setImmediate(this.onEnqueued);
    return ids;
  }

  /**
   * After the caller's own statement wrote events through {@link batchInsert}: tells the local
   * relay, as {@link addMany} does (it then runs a round unless the statement's notification will
   * wake it).
   */
  written(): void {
    setImmediate(this.onEnqueued);
  }

  /**
   * Several events as parts of the caller's own statement (a hot write path that commits its rows
   * and their events in one round trip): an INSERT for a data-modifying CTE and the relay's
   * notification, with their parameters numbered from `firstParam`. Every parameter carries an
   * explicit cast, so the parts also run with their values inlined as literals.
   */
  batchInsert(events: ReadonlyArray<PendingEvent>, firstParam: number): OutboxInsert {
    const ids: string[] = [];
    const types: string[] = [];
    const payloads: Buffer[] = [];
    const traceParents: Array<string | null> = [];
    const traceStates: Array<string | null> = [];
    const active = traceCarrierOf();
    for (const event of events) {
      const id = randomUUID();
      const trace = event.context?.trace ?? active;
      ids.push(id);
      types.push(event.type);
      payloads.push(this.encode(id, event.type, event.init, event.context ?? {}, trace));
      traceParents.push(trace?.traceparent ?? null);
      traceStates.push(trace?.tracestate ?? null);
    }
    const [idsParam, typesParam, payloadsParam, parentsParam, statesParam, channelParam] = [0, 1, 2, 3, 4, 5].map(
      (offset) => `$${firstParam + offset}`,
    );
    return {
      ids,
      insert: `INSERT INTO "${this.schema}".outbox (id, event_type, payload, trace_parent, trace_state) SELECT * FROM unnest(${idsParam}::uuid[], ${typesParam}::text[], ${payloadsParam}::bytea[], ${parentsParam}::text[], ${statesParam}::text[])`,
      notify: `SELECT pg_notify(${channelParam}::text, '')`,
      params: [ids, types, payloads, traceParents, traceStates, outboxChannel(this.schema)],
    };
  }

  /**
   * {@link batchInsert} as a part of a `combinedWrite` (CTE `name`, and the notification
   * that wakes the relay once the statement commits); undefined when there is no event.
   */
  writePart(events: ReadonlyArray<PendingEvent>, firstParam: number, name = 'outbox_inserted'): WritePart | undefined {
    if (events.length === 0) return undefined;
    const { insert, notify, params } = this.batchInsert(events, firstParam);
    return { ctes: [{ name, sql: insert }], selects: [notify], params };
  }

  private encode(id: string, type: EventType, init: unknown, context: EventContext, trace: TraceCarrier | undefined): Buffer {
    const spec = EVENTS[type];
    const meta = create(EventMetaSchema, {
      eventId: id,
      eventType: type,
      schemaVersion: spec.version,
      region: this.region,
      applicationId: context.applicationId ?? '',
      occurredAt: timestampFromDate(context.occurredAt ?? new Date()),
      traceId: traceIdOf(trace),
    });
    const message = create(spec.schema, { ...(init as object), meta } as never);
    const bytes = encodeEvent(spec.schema, message as never, this.personalData);
    // A view of the encoded bytes, not a copy: the encoder's output belongs to this event alone.
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** Outbox rows of a batch as parts of a larger statement; see {@link OutboxWriter.batchInsert}. */
export interface OutboxInsert {
  /** The events' ids (their future Nats-Msg-Id), in order. */
  readonly ids: string[];
  /** The multi-row INSERT into the outbox, for a WITH clause. */
  readonly insert: string;
  /** `SELECT pg_notify(...)`, which wakes the relay once the statement commits. */
  readonly notify: string;
  /** The parameters of both parts, in order from `firstParam`. */
  readonly params: unknown[];
}

/** The NOTIFY channel on which a schema's outbox relay listens. */
export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}

/** One event of {@link OutboxWriter.addMany}: its type, fields and context. */
export type PendingEvent = { [T in EventType]: { type: T; init: EventInit<T>; context?: EventContext } }[EventType];
