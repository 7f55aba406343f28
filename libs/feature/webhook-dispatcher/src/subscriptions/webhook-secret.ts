import { randomBytes } from 'node:crypto';

/** Prefix of webhook signing secrets, so they are recognisable in a secret scanner. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Random bytes of a signing secret (256 bits). */
const SECRET_BYTES = 32;

/**
 * A fresh signing secret: `whsec_` + the base64 of 32 random bytes, the form Standard Webhooks
 * libraries decode into their HMAC key. `X-Svc-Signature` keeps keying with the whole string's
 * UTF-8 bytes, as the spec says. Shown once, stored encrypted.
 */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The Standard Webhooks HMAC key of a secret: the base64-decoded part after `whsec_`. Secrets
 * minted before that form (`whsec_` + 43 base62 characters) are not base64 and have no key; they
 * sign `X-Svc-Signature` only, until rotated.
 */
export function standardWebhooksKey(secret: string): Buffer | undefined {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64');
}

/** Previous secret's validity after a rotation, ms (spec, Limits: 1 day). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60_000;
