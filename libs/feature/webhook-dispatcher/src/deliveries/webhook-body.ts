import { fromBinary, toJson, type DescMessage } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import {
  EVENTS,
  EventMetaSchema,
  SEALED_PERSONAL_DATA_FIELD,
  decodeSealedEvent,
  isEventType,
  type EventMeta,
  type PersonalDataSeal,
} from '@svc/contracts';

/**
 * Top-level event fields a webhook's `data` never carries (nor its documented schema): the
 * envelope's metadata, the sealed personal data, and the application's own name and
 * jurisdiction, which are stamped for the receipts service (the subscriber is the application).
 */
export const FIELDS_NOT_IN_WEBHOOK_DATA = ['meta', SEALED_PERSONAL_DATA_FIELD, 'application'] as const;

/** One event as applications see it; the source of every delivery's body. */
export interface WebhookEvent {
  /** Stable event id: the body's `id` and the `X-Svc-Event-ID` header of every attempt. */
  id: string;
  /** Event type: the body's `event` and the `X-Svc-Event-Type` header. */
  type: string;
  applicationId: string;
  occurredAt: Date;
  /** The event's own fields as JSON (proto field names), without the bus envelope. */
  data: Record<string, unknown>;
}

/**
 * The JSON body of a delivery: `{event, id, created_at, application_id, data}`. Serialised once at
 * enqueue and stored, so every retry sends (and signs) the very same bytes.
 */
export function webhookBody(event: WebhookEvent): string {
  return JSON.stringify({
    event: event.type,
    id: event.id,
    created_at: event.occurredAt.toISOString(),
    application_id: event.applicationId,
    data: event.data,
  });
}

/**
 * Reads field 1 (`EventMeta meta = 1`, common to every bus event) alone: the envelope of a payload
 * this build cannot decode, or of any event without decoding (nor opening) the rest. Throws when
 * the payload is malformed before or inside it.
 */
export function metaOnly(payload: Uint8Array): EventMeta | undefined {
  const reader = new BinaryReader(payload);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1 && wireType === WireType.LengthDelimited) return fromBinary(EventMetaSchema, reader.bytes());
    reader.skip(wireType);
  }
  return undefined;
}

/**
 * Turns a bus event into a webhook event. A type this build's contracts know is decoded in full;
 * an unknown one (a newer producer) still yields its envelope with empty `data`, so nothing
 * subscribed is dropped. Sealed personal fields are opened with the region's bus key, so the body
 * carries them as the event's own fields. Undefined when the payload has no usable envelope or no
 * application.
 */
export function webhookEventFromBus(
  busEventId: string,
  eventType: string,
  payload: Uint8Array,
  personalData?: PersonalDataSeal,
): WebhookEvent | undefined {
  let meta: EventMeta | undefined;
  let data: Record<string, unknown> = {};
  if (isEventType(eventType)) {
    const schema = EVENTS[eventType].schema as DescMessage;
    const message = decodeSealedEvent(schema, payload, personalData) as { meta?: EventMeta };
    meta = message.meta;
    const json = toJson(schema, message as never, { useProtoFieldName: true, alwaysEmitImplicit: true }) as Record<string, unknown>;
    for (const field of FIELDS_NOT_IN_WEBHOOK_DATA) delete json[field];
    data = json;
  } else {
    meta = metaOnly(payload);
  }
  if (!meta || !meta.applicationId) return undefined;
  return {
    id: meta.eventId || busEventId,
    type: eventType,
    applicationId: meta.applicationId,
    occurredAt: meta.occurredAt ? timestampDate(meta.occurredAt) : new Date(0),
    data,
  };
}
