import { randomFillSync } from 'node:crypto';

/**
 * CSPRNG bytes drawn a block at a time and handed out once each: one call into the generator per
 * block instead of one per identifier or nonce (the way `crypto.randomUUID` caches its entropy).
 * Minting identifiers and sealing an event's personal data (a fresh AES-GCM IV each) are on the
 * hot paths of recording a consent and appending an audit entry, where the generator's per-call
 * cost (several microseconds) was a measurable share. A byte handed out is zeroed in the block, so
 * it neither repeats nor stays behind in memory.
 */
const pool = Buffer.alloc(4_096);
let offset = pool.length;

function reserve(count: number): number {
  if (offset + count > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const start = offset;
  offset += count;
  return start;
}

/** One random byte. */
export function pooledRandomByte(): number {
  const at = reserve(1);
  const byte = pool[at]!;
  pool[at] = 0;
  return byte;
}

/** `count` random bytes (at most 4,096) in a buffer of their own. */
export function pooledRandomBytes(count: number): Buffer {
  if (count > pool.length) throw new RangeError(`At most ${pool.length} pooled random bytes at a time`);
  const at = reserve(count);
  const bytes = Buffer.allocUnsafe(count);
  pool.copy(bytes, 0, at, at + count);
  pool.fill(0, at, at + count);
  return bytes;
}
