import { randomBase62 } from '@svc/ids';

/** Prefix of webhook signing secrets, so they are recognisable in a secret scanner. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A fresh signing secret: `whsec_` + 43 base62 characters (~256 bits). Shown once, stored encrypted. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBase62(43)}`;
}

/** Previous secret's validity after a rotation, ms (spec, Limits: 1 day). */
export const PREVIOUS_SECRET_TTL_MS = 24 * 60 * 60_000;
