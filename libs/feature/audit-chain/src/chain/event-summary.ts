import { createHash } from 'node:crypto';
import { fromBinary, toJson, type DescMessage, type Message } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { AuditEventEnvelopeSchema, EVENTS, type EventMeta } from '@svc/contracts';
import type { AuditEntryInput, JsonValue } from './audit-entry';

/** A bus event as the chain sees it (structurally `DeliveredEvent` of @svc/bus). */
export interface SourceEvent {
  /** Nats-Msg-Id: the outbox id, unique per event. */
  readonly id: string;
  readonly eventType: string;
  readonly data: Uint8Array;
}

/**
 * The audit entry recording a bus event: type, event id, application, occurred_at and the
 * payload. A known type's payload is decoded and turned to proto-JSON (without its `meta`, whose
 * fields are lifted out, and with its sealed personal fields replaced by the SHA-256 of their
 * ciphertext, `sealedPersonalDataSha256`); an unknown type (a newer publisher) keeps its bytes as base64, so no
 * event is dropped for want of a schema. Carries nothing beyond what the event carries (and not
 * `consent.recorded`'s copy of its flow version's wording).
 *
 * @throws when the payload is not valid protobuf (a poison message; the consumer logs and nacks it).
 */
export function summariseEvent(event: SourceEvent): AuditEntryInput {
  const schema = (EVENTS as Record<string, { schema: DescMessage } | undefined>)[event.eventType]?.schema;
  let meta: EventMeta | undefined;
  let data: JsonValue;
  if (schema) {
    // Decoded once: every event message carries its EventMeta as field 1, read here and left out
    // of the JSON (its fields are lifted out below).
    const message = fromBinary(schema, event.data) as { meta?: EventMeta };
    meta = message.meta;
    message.meta = undefined;
    const { sealedPersonalData, ...payload } = toJson(schema, message as Message) as Record<string, JsonValue>;
    // consent.recorded's `notice` is the wording of its flow version, carried for the receipts
    // service: immutable per version and named by flowId and flowVersion, so every record's entry
    // need not copy it (a chain entry per record would grow with the flow's wording).
    if (event.eventType === 'consent.recorded') delete payload.notice;
    // The chain keeps a digest of the sealed personal fields, never their ciphertext: an entry must
    // not hold contact data, even encrypted under a key the region keeps (a person's erasure could
    // not reach it, and the chain cannot be rewritten). The digest still binds the entry to them.
    if (typeof sealedPersonalData === 'string' && sealedPersonalData.length > 0) {
      payload.sealedPersonalDataSha256 = createHash('sha256').update(Buffer.from(sealedPersonalData, 'base64')).digest('hex');
    }
    data = { encoding: 'json', payload };
  } else {
    meta = fromBinary(AuditEventEnvelopeSchema, event.data).meta;
    data = { encoding: 'protobuf_base64', payload: Buffer.from(event.data).toString('base64') };
  }
  const applicationId = meta?.applicationId || undefined;
  const agentId = pickAgentId(data);
  return {
    type: event.eventType,
    sourceEventId: event.id,
    applicationId,
    agentId,
    occurredAt: meta?.occurredAt ? timestampDate(meta.occurredAt) : undefined,
    data: { event_id: event.id, schema_version: meta?.schemaVersion ?? 0, ...(data as Record<string, JsonValue>) },
  };
}

/** The agent an event concerns, when its decoded payload names one at top level (`agentId`). */
function pickAgentId(data: JsonValue): string | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const payload = data.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const agentId = payload.agentId;
  return typeof agentId === 'string' && agentId.length > 0 && agentId.length <= 200 ? agentId : undefined;
}
