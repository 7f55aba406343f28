import { canonicalJson } from '@svc/crypto';

/** Version of the canonical entry layout, inside every entry's canonical text. */
export const ENTRY_FORMAT_VERSION = 1;

/** A JSON value as carried in an entry's `data`. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What a caller asks to append; the chain adds id, index, times and hashes. */
export interface AuditEntryInput {
  /** Dotted type, e.g. `consent.granted`; 1–200 characters. */
  readonly type: string;
  /** Owning application (`tp_<region>_…`), when the fact belongs to one; scopes who may read it. */
  readonly applicationId?: string;
  /** Agent the fact concerns, when any; scopes the agent transparency page. */
  readonly agentId?: string;
  /**
   * Id of the bus event (or other source) this entry records. Unique in the chain: appending a
   * second entry with the same source id returns the first one instead (idempotent redelivery).
   */
  readonly sourceEventId?: string;
  /** When the fact happened (from the source); defaults to the append time. */
  readonly occurredAt?: Date;
  /** The fact itself, canonicalised with RFC 8785. Never personal data beyond what the source carries. */
  readonly data: JsonValue;
}

/** An entry as stored: index, link, hash and the exact canonical text the hash covers. */
export interface StoredEntry {
  readonly index: number;
  readonly id: string;
  readonly previousHash: string;
  readonly hash: string;
  readonly canonical: string;
  readonly type: string;
  readonly applicationId: string | null;
  readonly agentId: string | null;
  readonly sourceEventId: string | null;
  readonly createdAt: Date;
}

/** Result of one append: the entry that records the input (a previous one for a duplicate source id). */
export interface AppendedEntry {
  readonly id: string;
  readonly index: number;
  readonly hash: string;
  /** True when the source id was already in the chain and nothing new was written. */
  readonly duplicate: boolean;
}

/**
 * The canonical (RFC 8785) text of an entry, the exact bytes its chain hash covers. Its id and
 * record time are inside, so an entry cannot be re-dated without breaking its hash; its position
 * is bound by the chain link (the hash of its predecessor), not by a field, so the text can be
 * computed before the writer knows the index (off the serialised path).
 */
export function canonicalEntry(input: AuditEntryInput, id: string, recordedAt: Date): string {
  return canonicalJson({
    v: ENTRY_FORMAT_VERSION,
    id,
    type: input.type,
    application_id: input.applicationId ?? null,
    agent_id: input.agentId ?? null,
    source_event_id: input.sourceEventId ?? null,
    occurred_at: (input.occurredAt ?? recordedAt).toISOString(),
    recorded_at: recordedAt.toISOString(),
    data: input.data,
  });
}
