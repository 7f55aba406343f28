import { createHash } from 'node:crypto';

/** SHA-256 hex digest under which an API token is stored and looked up; the token itself is never kept. */
export function apiTokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
