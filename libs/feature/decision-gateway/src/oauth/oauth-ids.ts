import { randomBytes } from 'node:crypto';

export { newRegionalId, type IdRegion } from '@svc/ids';

/** A client secret: 32 random bytes, URL-safe base64. */
export function randomBase64UrlSecret(): string {
  return randomBytes(32).toString('base64url');
}
