import { createHmac, timingSafeEqual } from 'node:crypto';

/** Typeform's signature header value: `sha256=` + base64 of HMAC-SHA256 over the raw body. */
export function typeformSignature(secret: string, rawBody: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('base64')}`;
}

/**
 * Compares a received `Typeform-Signature` with the expected one in constant time (the lengths of
 * well-formed values are equal; a length difference reveals only that the value is malformed).
 */
export function typeformSignatureMatches(secret: string, rawBody: Buffer, received: string): boolean {
  const expected = Buffer.from(typeformSignature(secret, rawBody), 'utf8');
  const given = Buffer.from(received, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
