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

  it('is uniform over the free positions: every draw of [0, free count) names a different free position', () => {
    // A uniform draw of k gives a uniform position exactly when k ↦ position is one to one onto the
    // free positions: checked for every k, not estimated from random samples (which fail by chance).
    const allocated = Uint8Array.from([0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
    const free = [0, 2, 3, 5, 6, 7, 9, 10];
    const positions = free.map((_, k) => pickFreePosition(allocated, () => k));
    expect(positions).toEqual(free);
  });
});
