import { createHmac } from 'node:crypto';
import { standardWebhooksKey } from '../subscriptions/webhook-secret';

// Stryker disable next-line StringLiteral: Node reads an empty encoding name as utf8, the default
const UTF8: BufferEncoding = 'utf8';

/**
 * `X-Svc-Signature` value: `v1=<hex>` where hex is HMAC-SHA256 keyed with the secret string's UTF-8
 * bytes over `<timestamp>.<raw body>`. During the day after a rotation the previous secret still
 * verifies, so both are sent, space separated, the current one first: `v1=<new> v1=<old>`.
 * Receivers accept the request when any entry matches any secret they hold (@svc/sdk-webhooks).
 */
export function signatureHeader(secrets: readonly string[], timestampSec: number, rawBody: string): string {
  const signed = `${timestampSec}.${rawBody}`;
  return secrets.map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, UTF8)).update(signed, UTF8).digest('hex')}`).join(' ');
}

/**
 * Standard Webhooks `webhook-signature` value: `v1,<base64>` per secret, space separated, the current
 * one first, where base64 is HMAC-SHA256 keyed with the secret's base64-decoded part after `whsec_`,
 * over `<webhook-id>.<timestamp>.<raw body>`. Secrets without a Standard Webhooks key (minted before
 * the base64 form) are skipped; undefined when none has one.
 */
export function standardWebhooksSignatureHeader(
  secrets: readonly string[],
  messageId: string,
  timestampSec: number,
  rawBody: string,
): string | undefined {
  const signed = `${messageId}.${timestampSec}.${rawBody}`;
  const signatures = secrets
    .map(standardWebhooksKey)
    .filter((key): key is Buffer => key !== undefined)
    .map((key) => `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`);
  return signatures.length > 0 ? signatures.join(' ') : undefined;
}
