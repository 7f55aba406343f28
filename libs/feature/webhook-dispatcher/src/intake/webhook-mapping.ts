import { webhookTypesOf, type PersonalDataSeal } from '@svc/contracts';
import { webhookEventFromBus, type WebhookEvent } from '../deliveries/webhook-body';
import { DELIVERY_FAILED_EVENT } from '../webhook-events';
import type { ConsentRecordRevokedWebhookData, ConsentRecordWebhookData } from './webhook-data.response';

/**
 * Record channels of decision sessions: a session's decision is one fact told twice — by
 * decision-gateway's `consent_session.granted` / `.denied` (the session's webhook, `consent.granted`
 * / `consent.denied`) and by the record
 * consent-records writes of it (`consent.recorded`) — so that record fires no webhook.
 */
export const SESSION_RECORD_CHANNELS: ReadonlySet<string> = new Set(['hosted', 'embedded']);

/** Why a bus event yields no webhook. */
export type WebhookSkipReason =
  /** Not a webhook in the event catalogue. */
  | 'not_subscribable'
  /** No envelope or no application to deliver to. */
  | 'no_application'
  /** A record of a decision session, whose own session event is the webhook. */
  | 'session_record'
  /** The failure of a `webhook.delivery_failed` delivery: audited, not fanned out again. */
  | 'delivery_failed_loop';

export type WebhookMapping = { webhook: WebhookEvent } | { skipped: WebhookSkipReason };

interface PurposeOutcomeJson {
  purpose: string;
  decision: string;
}

/** The subject reference as the organisation supplied it: only the members it gave. */
function subjectReference(data: Record<string, unknown>): { email?: string; external_id?: string } {
  const subject: { email?: string; external_id?: string } = {};
  if (data.subject_email) subject.email = data.subject_email as string;
  if (data.subject_external_id) subject.external_id = data.subject_external_id as string;
  return subject;
}

/** `consent.recorded` → `consent.granted` (a purpose granted) or `consent.denied` (none granted). */
function recordedWebhook(recorded: WebhookEvent): WebhookMapping {
  const data = recorded.data;
  if (SESSION_RECORD_CHANNELS.has(data.collection_channel as string)) return { skipped: 'session_record' };
  const purposes = ((data.outcomes as PurposeOutcomeJson[] | undefined) ?? []).map(({ purpose, decision }) => ({ purpose, decision }));
  const withdrawn = (data.withdrawn_purposes as string[] | undefined) ?? [];
  return {
    webhook: {
      ...recorded,
      type: purposes.some((p) => p.decision === 'granted') ? 'consent.granted' : 'consent.denied',
      data: {
        record_id: data.record_id,
        flow_id: data.flow_id,
        flow_version: data.flow_version,
        subject: subjectReference(data),
        purposes,
        collection_channel: data.collection_channel,
        captured_at: data.captured_at,
        recorded_at: data.recorded_at,
        ...(data.previous_record_id ? { previous_record_id: data.previous_record_id } : {}),
        ...(withdrawn.length > 0 ? { withdrawn_purposes: withdrawn } : {}),
      } satisfies ConsentRecordWebhookData,
    },
  };
}

/** `consent.record_revoked` → `consent.revoked`, with the record and the purposes granted until then. */
function recordRevokedWebhook(revoked: WebhookEvent): WebhookMapping {
  const data = revoked.data;
  return {
    webhook: {
      ...revoked,
      type: 'consent.revoked',
      data: {
        record_id: data.record_id,
        flow_id: data.flow_id,
        flow_version: data.flow_version,
        subject: subjectReference(data),
        purposes: (data.purposes as string[] | undefined) ?? [],
        channel: data.channel,
        revoked_at: data.revoked_at,
      } satisfies ConsentRecordRevokedWebhookData,
    },
  };
}

/**
 * What a bus event becomes for subscribers, as the event catalogue (`@svc/contracts`) declares:
 * webhook events go out under their own name, or the one public name the catalogue gives them
 * (`consent_session.granted` as `consent.granted`); consent-records' `consent.recorded` and
 * `consent.record_revoked` go out as `consent.granted` / `consent.denied` and `consent.revoked`.
 * The webhook keeps the bus event's id (X-Svc-Event-ID and inbox key), so a redelivered bus event
 * maps to the very same webhook. Throws when the payload does not decode or its sealed fields do
 * not open.
 */
export function webhookFor(busEventId: string, eventType: string, payload: Uint8Array, personalData?: PersonalDataSeal): WebhookMapping {
  const publicTypes = webhookTypesOf(eventType);
  if (publicTypes.length === 0) return { skipped: 'not_subscribable' };
  const event = webhookEventFromBus(busEventId, eventType, payload, personalData);
  if (!event) return { skipped: 'no_application' };
  if (eventType === 'consent.recorded') return recordedWebhook(event);
  if (eventType === 'consent.record_revoked') return recordRevokedWebhook(event);
  if (eventType === DELIVERY_FAILED_EVENT && event.data.failed_event_type === DELIVERY_FAILED_EVENT)
    return { skipped: 'delivery_failed_loop' };
  return { webhook: publicTypes.length === 1 ? { ...event, type: publicTypes[0]! } : event };
}
