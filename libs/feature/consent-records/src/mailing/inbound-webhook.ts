import { consentRecordsError } from '../consent-records.errors';

/** Inbound event types the tool posts for list members. */
const MEMBER_EVENT_TYPES = new Set(['subscribe', 'unsubscribe', 'profile', 'upemail', 'cleaned']);

/** One inbound webhook post, as far as the integration reads it. */
export type InboundPost =
  /** Mailchimp checks a new webhook URL with an empty request; it must answer 2xx. */
  | { kind: 'validation' }
  | { kind: 'member'; type: string; email: string; listId: string; firedAt: string | null }
  | { kind: 'other'; type: string; listId: string | null; firedAt: string | null };

/**
 * Reads a Mailchimp webhook body: form-encoded with flat bracketed keys (`type`, `fired_at`,
 * `data[email]`, `data[list_id]`, …), or the same as nested JSON. A member event without an email
 * address or list id, or any field given twice, is malformed (400).
 */
export function parseInboundPost(body: unknown): InboundPost {
  if (body === undefined || body === null || body === '' || (typeof body === 'object' && Object.keys(body).length === 0))
    return { kind: 'validation' };
  if (typeof body !== 'object' || Array.isArray(body)) throw malformed('body must be a form-encoded webhook');
  const fields = body as Record<string, unknown>;
  const nested =
    typeof fields.data === 'object' && fields.data !== null && !Array.isArray(fields.data) ? (fields.data as Record<string, unknown>) : {};
  const field = (name: string, dataKey?: string): string | null => {
    const value = dataKey ? (fields[`data[${dataKey}]`] ?? nested[dataKey]) : fields[name];
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string') throw malformed(`${name} must be given once, as text`, name);
    if (value.length > 320) throw malformed(`${name} is too long`, name);
    return value;
  };
  const type = field('type');
  if (!type) throw malformed('type is missing', 'type');
  if (!/^[a-z_]{1,32}$/.test(type)) throw malformed('type is not an event type', 'type');
  const firedAt = field('fired_at');
  const listId = field('data[list_id]', 'list_id');
  if (!MEMBER_EVENT_TYPES.has(type)) return { kind: 'other', type, listId, firedAt };
  const email = field('data[email]', 'email');
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw malformed('data[email] must be an email address', 'data[email]');
  if (!listId) throw malformed('data[list_id] is missing', 'data[list_id]');
  return { kind: 'member', type, email, listId, firedAt };
}

function malformed(message: string, field?: string): Error {
  return consentRecordsError('mailing_webhook_malformed', message, field ? { field } : undefined);
}
