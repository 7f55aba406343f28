import { createHmac } from 'node:crypto';

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
