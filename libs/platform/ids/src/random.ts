import { randomBytes } from 'node:crypto';
import { pooledRandomByte } from '@svc/contracts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** URL-safe base64 (RFC 4648 §5, no padding) of `bytes` random bytes; 32 bytes give 43 characters. */
export function randomBase64Url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/** Lowercase RFC 4648 base32 without padding, `length` characters (5 random bits each). */
export function randomBase32(length: number): string {
  return randomAlphabet(BASE32, length);
}

/** Base62 string of `length` characters. */
export function randomBase62(length: number): string {
  return randomAlphabet(BASE62, length);
}

function randomAlphabet(alphabet: string, length: number): string {
  // Rejection sampling keeps every symbol equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = pooledRandomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}
