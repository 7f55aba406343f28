import type { DescMessage } from '@bufbuild/protobuf';
import type { EventEntry } from './events/event-entry';
import { CONNECT_EVENTS } from './events/connect.events';
import { DATA_REQUEST_EVENTS, PEOPLE_EVENTS } from './events/people.events';
import { OAUTH_EVENTS } from './events/oauth.events';
import { DELEGATIONS_EVENTS } from './events/delegations.events';
import { KEYS_EVENTS } from './events/keys.events';
import { OAP_EVENTS } from './events/oap.events';
import { AUDIT_EVENTS } from './events/audit.events';
import { WEBHOOKS_EVENTS } from './events/webhooks.events';
import { OVERSIGHT_EVENTS } from './events/oversight.events';
import { OVERSIGHT_RPC } from './rpc/oversight.rpc';
import { GATEWAY_RPC } from './rpc/gateway.rpc';
import { DECISIONS_EVENTS } from './events/decisions.events';
import { RECORDS_EVENTS } from './events/records.events';
import { DIRECTORY_EVENTS } from './events/directory.events';
import { FLOWS_RPC } from './rpc/flows.rpc';
import { OAP_RPC } from './rpc/oap.rpc';
import { AUDIT_RPC } from './rpc/audit.rpc';
import { RECEIPTS_RPC } from './rpc/receipts.rpc';
import { RESIDENCY_RPC } from './rpc/residency.rpc';

/**
 * Every bus event type, mapped to its catalogue entry: protobuf message, schema version, producer,
 * webhook and audit membership, meaning (see `events/event-entry.ts`). The event type is the
 * subject suffix: `<prefix>.<region>.evt.<event type>`. Each area keeps its own map in `events/`.
 */
export const EVENTS = {
  ...CONNECT_EVENTS,
  ...PEOPLE_EVENTS,
  ...DATA_REQUEST_EVENTS,
  ...OAUTH_EVENTS,
  ...DELEGATIONS_EVENTS,
  ...KEYS_EVENTS,
  ...DECISIONS_EVENTS,
  ...RECORDS_EVENTS,
  ...DIRECTORY_EVENTS,
  ...OAP_EVENTS,
  ...AUDIT_EVENTS,
  ...WEBHOOKS_EVENTS,
  ...OVERSIGHT_EVENTS,
} as const satisfies Record<string, EventEntry>;

export type EventType = keyof typeof EVENTS;

/**
 * Every request/reply method, with its request and reply messages. Subject:
 * `<prefix>.<region>.rpc.<method>`; these travel over core NATS, never stored.
 */
export const RPC_METHODS = {
  ...GATEWAY_RPC,
  ...FLOWS_RPC,
  ...OAP_RPC,
  ...AUDIT_RPC,
  ...OVERSIGHT_RPC,
  ...RECEIPTS_RPC,
  ...RESIDENCY_RPC,
} as const satisfies Record<string, { request: DescMessage; reply: DescMessage }>;

export type RpcMethod = keyof typeof RPC_METHODS;

/** Subject of an event in a region. */
export function eventSubject(prefix: string, region: string, type: EventType | string): string {
  return `${prefix}.${region}.evt.${type}`;
}

/** Wildcard of all events of a region, the subject filter of the region's stream. */
export function regionEventWildcard(prefix: string, region: string): string {
  return `${prefix}.${region}.evt.>`;
}

/** Subject of a request/reply method in a region. */
export function rpcSubject(prefix: string, region: string, method: RpcMethod): string {
  return `${prefix}.${region}.rpc.${method}`;
}

/** JetStream stream holding a region's events. */
export function regionStreamName(prefix: string, region: string): string {
  return `${prefix}_${region}_events`.toUpperCase();
}

/** Subject of the events a durable of a region gave up on (`<prefix>.<region>.dlq.<durable>`). */
export function deadLetterSubject(prefix: string, region: string, durable: string): string {
  return `${prefix}.${region}.dlq.${durable}`;
}

/** Every dead-letter subject of a region. */
export function deadLetterWildcard(prefix: string, region: string): string {
  return `${prefix}.${region}.dlq.>`;
}

/** Name of the JetStream stream keeping a region's dead letters. */
export function deadLetterStreamName(prefix: string, region: string): string {
  return `${prefix}_${region}_dead_letters`.toUpperCase();
}
