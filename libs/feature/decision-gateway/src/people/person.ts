import { createHash, createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { SignedInPerson } from './person-sessions.port';

/** A person account as stored in its home region. */
export interface Person {
  id: string;
  email: string;
  emailVerifiedAt: Date | null;
  displayName: string;
  locale: string;
  timeZone: string;
  homeCountry: string;
  createdAt: Date;
}

/** The directory view of a person (no sign-in facts). */
export function directoryView(person: Person): Omit<SignedInPerson, 'authenticatedAt' | 'methods'> {
  return {
    personId: person.id,
    email: person.email,
    emailVerified: person.emailVerifiedAt !== null,
    displayName: person.displayName,
    locale: person.locale,
    timeZone: person.timeZone,
    homeCountry: person.homeCountry,
  };
}

/** Digits of a one-time email code. */
export const EMAIL_CODE_DIGITS = 6;
/** Wrong tries one code accepts before it is dead. */
export const MAX_CODE_ATTEMPTS = 5;

/** A fresh one-time code: uniformly random decimal digits from the CSPRNG. */
export function newEmailCode(): string {
  return String(randomInt(0, 10 ** EMAIL_CODE_DIGITS)).padStart(EMAIL_CODE_DIGITS, '0');
}

/**
 * Keyed digest of a code, bound to its challenge: HMAC-SHA256 under a key derived from the
 * region's key-encryption key, so a copy of the table alone cannot be brute-forced offline.
 */
export function emailCodeDigest(key: Buffer, challengeId: string, code: string): string {
  return createHmac('sha256', key).update(`${challengeId}\u0000${code}`).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/** The key email codes are digested under (HKDF-SHA256 of the key-encryption key). */
export function emailCodeKey(keyEncryptionKey: string, region: string): Buffer {
  return Buffer.from(
    hkdfSync('sha256', Buffer.from(keyEncryptionKey, 'base64'), Buffer.from(region), Buffer.from('people email code v1'), 32),
  );
}

/** An opaque random secret (256 bits, base64url): cookie values and challenge ids. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Lower-cased, trimmed email address: the account key. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The name of the sign-in cookie: `__Host-` prefixed (Secure, path /, no Domain) over https. */
export function sessionCookieName(secure: boolean): string {
  return secure ? '__Host-svc_person' : 'svc_person';
}

/** The value of one cookie of a request, or undefined. */
export function cookieOf(request: IncomingMessage, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` of the sign-in cookie (or of its removal when `value` is null). */
export function sessionCookie(secure: boolean, value: string | null, maxAgeSeconds: number): string {
  const attributes = [
    `${sessionCookieName(secure)}=${value ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${value === null ? 0 : maxAgeSeconds}`,
  ];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}

/**
 * A same-origin path to return to after signing in: starts with one `/`, no scheme, no
 * backslash, no control characters; anything else falls back to the account page.
 */
export function safeReturnTo(value: unknown, fallback = '/people/account'): string {
  if (typeof value !== 'string' || value.length > 2048) return fallback;
  if (
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.includes('\\') ||
    [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)
  )
    return fallback;
  return value;
}
