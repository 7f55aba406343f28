import { EVENTS, type EventType } from '../subjects';
import type { EventEntry, EventProducer } from './event-entry';

/**
 * The event catalogue: every bus event type with its message, its one producer, whether it becomes
 * a webhook (and under which public name) and an audit entry, and its meaning. Declared beside each
 * event in the area maps of `events/`; the webhook dispatcher, the audit chain and the webhook
 * documentation derive their membership from here.
 */
export const EVENT_CATALOGUE: Readonly<Record<EventType, EventEntry>> = EVENTS;

type Entry<K extends EventType> = (typeof EVENTS)[K];
type PublicWebhookOf<K extends EventType> =
  Entry<K> extends { webhook: true } ? K : Entry<K> extends { webhook: { as: ReadonlyArray<infer N> } } ? N : never;

/** A public webhook type (the body's `event`, `X-Svc-Event-Type`): what applications subscribe to. */
export type WebhookEventType = { [K in EventType]: PublicWebhookOf<K> }[EventType];

/** A bus event type delivered as a webhook, under its own name or another. */
export type WebhookSourceEventType = { [K in EventType]: PublicWebhookOf<K> extends never ? never : K }[EventType];

const TYPES = Object.keys(EVENTS) as EventType[];

function entryOf(type: string): EventEntry | undefined {
  return Object.prototype.hasOwnProperty.call(EVENTS, type) ? EVENT_CATALOGUE[type as EventType] : undefined;
}

/** The public webhook types a bus event is delivered as: none, its own name, or the names of `webhook.as`. */
export function webhookTypesOf(type: string): readonly WebhookEventType[] {
  const webhook = entryOf(type)?.webhook;
  if (!webhook) return [];
  return (webhook === true ? [type] : webhook.as) as readonly WebhookEventType[];
}

/** Bus event types the webhook dispatcher delivers, in catalogue order. */
export const WEBHOOK_SOURCE_EVENT_TYPES: readonly WebhookSourceEventType[] = TYPES.filter(
  (type) => webhookTypesOf(type).length > 0,
) as WebhookSourceEventType[];

/** Every public webhook type, once each, in catalogue order. */
export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  ...new Set(WEBHOOK_SOURCE_EVENT_TYPES.flatMap((type) => webhookTypesOf(type))),
];

/** True when `type` names a public webhook type. */
export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

/** Bus event types appended to the audit chain, in catalogue order. */
export const AUDITED_EVENT_TYPES: readonly EventType[] = TYPES.filter((type) => EVENT_CATALOGUE[type].audited);

const AUDITED = new Set<string>(AUDITED_EVENT_TYPES);

/** Whether an event of `type` is recorded in the audit chain (false for a type this build does not know). */
export function isAuditedEventType(type: string): boolean {
  return AUDITED.has(type);
}

/** The event types a producer publishes. */
export function eventTypesProducedBy(producer: EventProducer): EventType[] {
  return TYPES.filter((type) => EVENT_CATALOGUE[type].producer === producer);
}
