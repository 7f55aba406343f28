import { randomBytes, randomFillSync } from 'node:crypto';

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

/**
 * CSPRNG bytes drawn a block at a time and handed out once each: one system call per block
 * instead of one per identifier (the way `crypto.randomUUID` caches its entropy). Appending an
 * audit entry or recording a consent mints several identifiers, and the per-call cost of the
 * generator was a measurable share of those hot paths.
 */
const pool = Buffer.alloc(4_096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const byte = pool[poolOffset]!;
  pool[poolOffset] = 0; // a byte handed out does not stay behind in memory
  poolOffset += 1;
  return byte;
}

function randomAlphabet(alphabet: string, length: number): string {
  // Rejection sampling keeps every symbol equally likely.
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out += alphabet[byte % alphabet.length];
  }
  return out;
}
