import { createHash } from 'node:crypto';
import { decisionError } from './decisions.errors';

/**
 * Session tokens minted here are `dts_` + 43 URL-safe base64 characters; approval sessions opened
 * by an escalation may carry the bare 43-character form (spec, Identifiers / Limits).
 */
const SESSION_TOKEN = /^(dts_)?[A-Za-z0-9_-]{43}$/;

/** SHA-256 hex of a token: sessions and consent tokens are stored and looked up by digest. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Digest of a well-formed session token; a malformed one answers like an unknown one (404). */
export function sessionDigest(token: string): string {
  if (!SESSION_TOKEN.test(token)) throw decisionError('session_not_found', 'Decision session not found');
  return tokenDigest(token);
}

/** The bare 43-character form: tokens oap-authorizer mints for escalations (those minted here carry `dts_`). */
export function isEscalationToken(token: string): boolean {
  return SESSION_TOKEN.test(token) && !token.startsWith('dts_');
}
