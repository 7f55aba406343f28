import type { SignatureFormat } from '../subscriptions/signature-formats';
import { signatureHeader, standardWebhooksSignatureHeader } from './signature';

export interface DeliveryHeaderInput {
  eventId: string;
  eventType: string;
  /** Signing secrets, the current one first (two during a rotation's overlap). */
  secrets: readonly string[];
  timestampSec: number;
  payload: string;
  signatureFormats: readonly SignatureFormat[];
}

/**
 * Headers of one attempt: always the spec's `X-Svc-*` set; with `standard_webhooks` also
 * `webhook-id` (the event id, stable across retries), `webhook-timestamp` (the same instant) and
 * `webhook-signature`.
 */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
    'x-svc-signature': signatureHeader(input.secrets, input.timestampSec, input.payload),
    'x-svc-timestamp': String(input.timestampSec),
    'x-svc-event-id': input.eventId,
    'x-svc-event-type': input.eventType,
  };
  if (input.signatureFormats.includes('standard_webhooks')) {
    const signature = standardWebhooksSignatureHeader(input.secrets, input.eventId, input.timestampSec, input.payload);
    if (signature !== undefined) {
      headers['webhook-id'] = input.eventId;
      headers['webhook-timestamp'] = String(input.timestampSec);
      headers['webhook-signature'] = signature;
    }
  }
  return headers;
}
