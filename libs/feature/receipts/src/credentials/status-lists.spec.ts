import { randomInt } from 'node:crypto';
import { pickFreePosition } from './status-lists';

describe('pickFreePosition', () => {
  it('returns the k-th free position, skipping taken ones', () => {
    const allocated = Uint8Array.from([1, 0, 1, 1, 0, 0, 1, 0]);
    expect([0, 1, 2, 3].map((k) => pickFreePosition(allocated, () => k))).toEqual([1, 4, 5, 7]);
  });

  it('draws k from [0, free count)', () => {
    const bounds: number[] = [];
    pickFreePosition(Uint8Array.from([0, 1, 0, 0]), (bound) => {
      bounds.push(bound);
      return 0;
    });
    expect(bounds).toEqual([3]);
  });

  it('has nothing to give from a full list, and refuses a draw out of range', () => {
    expect(pickFreePosition(Uint8Array.from([1, 1]), () => 0)).toBeUndefined();
    expect(() => pickFreePosition(Uint8Array.from([0, 0]), () => 2)).toThrow(RangeError);
  });

  it('fills a list without collisions, every position once', () => {
    const allocated = new Uint8Array(257);
    const taken: number[] = [];
    for (;;) {
      const index = pickFreePosition(allocated, randomInt);
      if (index === undefined) break;
      expect(allocated[index]).toBe(0);
      allocated[index] = 1;
      taken.push(index);
    }
    expect(taken).toHaveLength(257);
    expect(new Set(taken).size).toBe(257);
    // Not the issuance order: the chance of 257 positions coming out sorted is 1/257!.
    expect(taken).not.toEqual([...taken].sort((a, b) => a - b));
  });

  it('is uniform over the free positions (chi-squared, 8 bins, 16 000 draws)', () => {
    const allocated = Uint8Array.from([0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
    const free = [0, 2, 3, 5, 6, 7, 9, 10];
    const counts = new Map<number, number>(free.map((index) => [index, 0]));
    const draws = 16_000;
    for (let n = 0; n < draws; n++) {
      const index = pickFreePosition(allocated, randomInt)!;
      counts.set(index, (counts.get(index) ?? 0) + 1);
    }
    expect([...counts.keys()].sort((a, b) => a - b)).toEqual(free);
    const expected = draws / free.length;
    const chi2 = [...counts.values()].reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
    // 7 degrees of freedom: P(chi2 > 24.32) = 0.001.
    expect(chi2).toBeLessThan(24.32);
  });
});
