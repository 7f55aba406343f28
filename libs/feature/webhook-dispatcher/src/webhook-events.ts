import type { EventTypeFilter } from '@svc/bus';
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SOURCE_EVENT_TYPES,
  EVENT_CATALOGUE,
  isWebhookEventType,
  type EventType,
  type WebhookEventType,
} from '@svc/contracts';

/**
 * Event types an application can subscribe to (spec, Events → Webhooks): the public webhook types
 * of the event catalogue in `@svc/contracts` (entries with `webhook`), including the operational
 * `webhook.delivery_failed` the dispatcher emits when a delivery fails for good.
 */
export const SUBSCRIBABLE_EVENT_TYPES: readonly WebhookEventType[] = WEBHOOK_EVENT_TYPES;

export type SubscribableEventType = WebhookEventType;

/** The operational event of a delivery that failed for good. */
export const DELIVERY_FAILED_EVENT = 'webhook.delivery_failed' satisfies SubscribableEventType;

/** Type of the deliveries sent by the "send a test delivery" endpoint; never subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** True when `type` is a subscribable event name. */
export function isSubscribableEventType(type: string): type is SubscribableEventType {
  return isWebhookEventType(type);
}

/**
 * Subject filters of the intake, one durable consumer each, derived from the catalogue's webhook
 * sources: `<area>.>` for an area with several event types that all become webhooks, the exact
 * types otherwise. Other types under a wildcard are acknowledged and skipped.
 */
export function intakeSubjectFilters(sources: readonly string[], catalogue: readonly string[]): string[] {
  const areaOf = (type: string): string => type.slice(0, type.indexOf('.'));
  const filters: string[] = [];
  for (const type of sources) {
    const area = areaOf(type);
    const inArea = catalogue.filter((t) => areaOf(t) === area);
    const filter = inArea.length > 1 && inArea.every((t) => sources.includes(t)) ? `${area}.>` : type;
    if (!filters.includes(filter)) filters.push(filter);
  }
  return filters;
}

/** The intake's subject filters (see {@link intakeSubjectFilters}); each names its durable. */
export const INTAKE_SUBJECT_FILTERS = intakeSubjectFilters(
  WEBHOOK_SOURCE_EVENT_TYPES,
  Object.keys(EVENT_CATALOGUE) as EventType[],
) as readonly EventTypeFilter[];
