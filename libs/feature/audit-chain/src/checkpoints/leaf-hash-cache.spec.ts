import { createHash } from 'node:crypto';
import { entryLeafHash } from '../verification/merkle-frontier';
import { LeafHashCache, type LeafHashSource } from './leaf-hash-cache';

/** A stored chain of `size` entries whose reads answer after a tick, like a database round trip. */
function chainOf(size: number, gapAt?: number): LeafHashSource & { reads: Array<[number, number]> } {
  const hashes = Array.from({ length: size }, (_, index) => createHash('sha256').update(`entry ${index}`).digest('hex'));
  const reads: Array<[number, number]> = [];
  return {
    reads,
    hashes: async (from: number, to: number) => {
      reads.push([from, to]);
      await new Promise((resolve) => setImmediate(resolve));
      return hashes.flatMap((hash, index) => (index >= from && index < to && index !== gapAt ? [{ index, hash }] : []));
    },
  };
}

describe('LeafHashCache', () => {
  it('answers concurrent callers (a checkpoint, a proof and a witness submission at once) with the same leaves, reading each row once', async () => {
    const chain = chainOf(12);
    const cache = new LeafHashCache(chain);
    const [eight, twelve, ten] = await Promise.all([cache.prefix(8), cache.prefix(12), cache.prefix(10)]);
    expect(eight).toHaveLength(8);
    expect(twelve).toHaveLength(12);
    expect(ten).toEqual(twelve.slice(0, 10));
    expect(twelve[3]).toEqual(entryLeafHash(createHash('sha256').update('entry 3').digest('hex')));
    expect(chain.reads).toEqual([
      [0, 8],
      [8, 12],
    ]);
  });

  it('names the first missing index of a chain with a gap, and a later caller is not blocked by that failure', async () => {
    const cache = new LeafHashCache(chainOf(6, 4));
    await expect(cache.prefix(6)).rejects.toThrow('audit chain has no entry at index 4');
    await expect(cache.prefix(4)).resolves.toHaveLength(4);
  });
});
