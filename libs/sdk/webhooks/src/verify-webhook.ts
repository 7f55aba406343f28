import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './webhook-verification.error';

/** Default receiver-side timestamp tolerance, seconds (spec, Limits: 5 minutes). */
export const DEFAULT_WEBHOOK_TOLERANCE_SEC = 300;

/** Name of the signature header: `v1=<hex>`, or `v1=<new> v1=<old>` during a secret rotation. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-svc-signature';
/** Name of the timestamp header: Unix epoch seconds, part of the signed content. */
export const WEBHOOK_TIMESTAMP_HEADER = 'x-svc-timestamp';
/** Name of the event id header: stable across retries; use it as the idempotency key. */
export const WEBHOOK_EVENT_ID_HEADER = 'x-svc-event-id';
/** Name of the event type header, e.g. `consent.granted`. */
export const WEBHOOK_EVENT_TYPE_HEADER = 'x-svc-event-type';

/** Header values as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The request body exactly as received, before any JSON parsing (bytes or UTF-8 text). */
  rawBody: string | Uint8Array;
  headers: WebhookHeaders;
  /**
   * The subscription's signing secrets (`whsec_…`). Pass the current one, and during the day after a
   * rotation also the previous one: a signature by either verifies.
   */
  secrets: readonly string[];
  /** Current time; defaults to the wall clock. */
  now?: Date;
  /** Largest accepted age (and future skew) of `X-Svc-Timestamp`, seconds; default 300. */
  toleranceSec?: number;
}

/** What a verified request carries; trust it only after {@link verifyWebhook} returned. */
export interface VerifiedWebhook {
  /** `X-Svc-Event-ID`: stable across retries, the idempotency key. */
  eventId: string | undefined;
  /** `X-Svc-Event-Type`. */
  eventType: string | undefined;
  /** `X-Svc-Timestamp` as a Date. */
  timestamp: Date;
  /** The parsed JSON body. */
  payload: unknown;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(' ') : (value as string | undefined);
}

/** HMAC-SHA256 over `<timestamp>.<raw body>` keyed with the secret's UTF-8 bytes (prefix included). */
function expectedSignature(secret: string, timestamp: string, body: Buffer): Buffer {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest();
}

/**
 * Verifies a webhook request from the service.
 *
 * Contract: `X-Svc-Signature` holds one or more space-separated `v1=<hex>` entries (two during the
 * one-day overlap after a secret rotation: the new secret's first). Each is HMAC-SHA256, hex, over
 * the ASCII `X-Svc-Timestamp` value, a `.`, and the raw body bytes, keyed with the secret string's
 * UTF-8 bytes. The request verifies when any entry matches any given secret and the timestamp is
 * within `toleranceSec` of `now` (both directions), which bounds replay of a captured request.
 *
 * Comparisons are constant time (`crypto.timingSafeEqual` on equal-length digests), so response
 * timing does not leak how much of a forged signature was right. Throws
 * {@link WebhookVerificationError} with a reason; returns the parsed payload on success.
 */
export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook {
  const tolerance = options.toleranceSec ?? DEFAULT_WEBHOOK_TOLERANCE_SEC;
  const secrets = options.secrets.filter((s) => typeof s === 'string' && s.length > 0);
  if (secrets.length === 0) throw new WebhookVerificationError('options_invalid', 'No webhook secret was given to verify with');
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new WebhookVerificationError('options_invalid', 'toleranceSec must be a non-negative number');

  const timestamp = header(options.headers, WEBHOOK_TIMESTAMP_HEADER)?.trim();
  if (!timestamp || !/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('timestamp_invalid', 'X-Svc-Timestamp is missing or not Unix seconds');
  const signedAt = Number(timestamp);
  const nowSec = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSec - signedAt) > tolerance) {
    throw new WebhookVerificationError('timestamp_outside_tolerance', `X-Svc-Timestamp is more than ${tolerance} s away from now`);
  }

  const signatureHeader = header(options.headers, WEBHOOK_SIGNATURE_HEADER) ?? '';
  const candidates = signatureHeader
    .split(/\s+/)
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => entry.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/i.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
  if (candidates.length === 0) throw new WebhookVerificationError('signature_missing', 'X-Svc-Signature has no v1= signature');

  const body = typeof options.rawBody === 'string' ? Buffer.from(options.rawBody, 'utf8') : Buffer.from(options.rawBody);
  let matched = false;
  // Every pair is compared (no early exit) so timing does not reveal which secret or entry matched.
  for (const secret of secrets) {
    const expected = expectedSignature(secret, timestamp, body);
    for (const candidate of candidates) if (timingSafeEqual(expected, candidate)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch', 'No X-Svc-Signature entry matches the given secrets');

  let payload: unknown;
  try {
    payload = JSON.parse(body.toString('utf8'));
  } catch {
    payload = undefined;
  }
  return {
    eventId: header(options.headers, WEBHOOK_EVENT_ID_HEADER),
    eventType: header(options.headers, WEBHOOK_EVENT_TYPE_HEADER),
    timestamp: new Date(signedAt * 1000),
    payload,
  };
}
