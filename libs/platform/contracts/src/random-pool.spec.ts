import { pooledRandomByte, pooledRandomBytes } from './random-pool';

describe('pooled random bytes', () => {
  it('hands out bytes of the asked length that never repeat across many blocks', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i += 1) {
      const nonce = pooledRandomBytes(12);
      expect(nonce).toHaveLength(12);
      seen.add(nonce.toString('hex'));
    }
    expect(seen.size).toBe(2_000);
  });

  it('gives each caller a buffer of its own, unchanged by later draws', () => {
    const first = pooledRandomBytes(16);
    const copy = Buffer.from(first);
    for (let i = 0; i < 600; i += 1) pooledRandomBytes(16);
    expect(first).toEqual(copy);
  });

  it('spreads single bytes over every value', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 256 * 200; i += 1) counts[pooledRandomByte()]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(0);
  });

  it('refuses more than one block at a time, naming the limit', () => {
    expect(() => pooledRandomBytes(4_097)).toThrow(/At most 4096/);
  });
});
