/**
 * Event types an application can subscribe to (spec, Events → Webhooks), plus the operational
 * `webhook.delivery_failed` the dispatcher emits when a delivery fails for good.
 */
export const SUBSCRIBABLE_EVENT_TYPES = [
  'consent.granted',
  'consent.denied',
  'consent.revoked',
  'consent.purpose_revoked',
  'consent.expired',
  'approval.granted',
  'approval.denied',
  'approval.countered',
  'flow.activated',
  'signature.signed',
  'signature.declined',
  'signature.expired',
  'signature.countered',
  'agreement.activated',
  'agreement.declined',
  'agreement.expired',
  'agreement.withdrawn',
  'agreement.amended',
  'agreement.amendment_rejected',
  'collaboration.member_invited',
  'collaboration.member_accepted',
  'collaboration.member_declined',
  'collaboration.member_revoked',
  'delegation.offered',
  'delegation.accepted',
  'delegation.revoked',
  'grant.revoked',
  'authority.revoked',
  'data_request.received',
  'data_request.in_progress',
  'data_request.extended',
  'data_request.completed',
  'data_request.rejected',
  'webhook.delivery_failed',
] as const;

export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

/** The operational event of a delivery that failed for good. */
export const DELIVERY_FAILED_EVENT = 'webhook.delivery_failed' satisfies SubscribableEventType;

/** Type of the deliveries sent by the "send a test delivery" endpoint; never subscribable. */
export const TEST_EVENT_TYPE = 'webhook.test';

/** True when `type` is a subscribable event name. */
export function isSubscribableEventType(type: string): type is SubscribableEventType {
  return (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(type);
}

/**
 * Subject suffixes the intake consumes, one durable consumer each. Together they cover every
 * subscribable type and the renamed record events (`consent.recorded`, `consent.record_revoked`);
 * other types under a wildcard are acknowledged and skipped.
 */
export const INTAKE_SUBJECT_FILTERS = ['consent.>', 'approval.>', 'flow.activated', 'signature.>', 'agreement.>', 'collaboration.>', 'delegation.>', 'grant.revoked', 'authority.revoked', 'data_request.>', DELIVERY_FAILED_EVENT] as const;
