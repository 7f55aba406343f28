import { randomUUID } from 'node:crypto';
import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EVENTS, EventMetaSchema, type EventType } from '@svc/contracts';
import type { EntityManager } from 'typeorm';
import { CONSENT_RECORDS_SCHEMA } from '../schema';

type EventInit<T extends EventType> = Omit<MessageInitShape<(typeof EVENTS)[T]['schema']>, 'meta' | '$typeName'>;

/** One event of a batch, encoded exactly as @svc/persistence's OutboxWriter encodes it. */
export interface BatchEvent<T extends EventType = EventType> {
  type: T;
  init: EventInit<T>;
  applicationId: string;
  occurredAt: Date;
}

/**
 * Writes many events into consent_records' outbox with ONE insert and one notify, inside the
 * caller's transaction (group commit for imports). Same rows as OutboxWriter.add, so the relay
 * publishes them unchanged; OutboxWriter costs two statements per event.
 */
export async function addEvents(manager: EntityManager, region: string, events: readonly BatchEvent[]): Promise<void> {
  if (events.length === 0) return;
  const ids: string[] = [];
  const types: string[] = [];
  const payloads: Buffer[] = [];
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
      traceId: '',
    });
    const message = create(spec.schema, { ...(event.init as object), meta } as never);
    ids.push(id);
    types.push(event.type);
    payloads.push(Buffer.from(toBinary(spec.schema, message as never)));
  }
  await manager.query(`INSERT INTO "${CONSENT_RECORDS_SCHEMA}".outbox (id, event_type, payload) SELECT * FROM unnest($1::uuid[], $2::text[], $3::bytea[])`, [ids, types, payloads]);
  await manager.query('SELECT pg_notify($1, $2)', [`${CONSENT_RECORDS_SCHEMA}_outbox`, '']);
}
