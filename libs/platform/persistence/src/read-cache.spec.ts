import { ReadCache } from './read-cache';

/** A read whose answer the test releases, to order it against changes. */
function deferred<V>(): { promise: Promise<V>; resolve: (value: V) => void; reject: (error: Error) => void } {
  let resolve!: (value: V) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<V>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('read cache', () => {
  let time: number;
  let cache: ReadCache<string>;
  let reads: number;
  const read = (value: string) => () => {
    reads += 1;
    return Promise.resolve(value);
  };

  beforeEach(() => {
    time = 0;
    reads = 0;
    cache = new ReadCache<string>({ maxAgeMs: 1_000, now: () => time });
  });

  it('reads once and answers from memory until the answer is older than its max age', async () => {
    expect(await cache.get('k', read('a'))).toBe('a');
    time = 999;
    expect(await cache.get('k', read('b'))).toBe('a');
    expect(reads).toBe(1);
    time = 1_000;
    expect(await cache.get('k', read('b'))).toBe('b');
    expect(reads).toBe(2);
  });

  it('shares one read among concurrent misses and keeps no refusal', async () => {
    const slow = deferred<string>();
    const first = cache.get('k', () => slow.promise);
    const second = cache.get('k', read('other'));
    slow.resolve('a');
    expect(await Promise.all([first, second])).toEqual(['a', 'a']);
    expect(reads).toBe(0);

    await expect(cache.get('x', () => Promise.reject(new Error('not found')))).rejects.toThrow('not found');
    expect(await cache.get('x', read('found'))).toBe('found');
  });

  it('answers from the database, keeping nothing, while a change of the key may be committing', async () => {
    expect(await cache.get('k', read('before'))).toBe('before');
    const commit = deferred<void>();
    const changing = cache.change(['k'], () => commit.promise);
    expect(await cache.get('k', read('during'))).toBe('during');
    expect(await cache.get('k', read('during again'))).toBe('during again');
    commit.resolve();
    await changing;
    expect(await cache.get('k', read('after'))).toBe('after');
    expect(await cache.get('k', read('later'))).toBe('after');
    expect(reads).toBe(4);
  });

  it('does not keep a read that started before a change committed (its snapshot may predate the commit)', async () => {
    const stale = deferred<string>();
    const early = cache.get('k', () => stale.promise);
    await cache.change(['k'], () => Promise.resolve());
    // The read from before the commit answers only after it: its caller gets it, nobody else does.
    stale.resolve('no audience');
    expect(await early).toBe('no audience');
    expect(await cache.get('k', read('audience'))).toBe('audience');
  });

  it('forgets the answer after a failed change too, and on an invalidation heard from elsewhere', async () => {
    await cache.get('k', read('a'));
    await expect(cache.change(['k'], () => Promise.reject(new Error('rolled back')))).rejects.toThrow('rolled back');
    expect(await cache.get('k', read('b'))).toBe('b');
    cache.invalidate('k');
    expect(await cache.get('k', read('c'))).toBe('c');
    const inFlight = deferred<string>();
    const pending = cache.get('k2', () => inFlight.promise);
    cache.invalidate('k2');
    inFlight.resolve('old');
    await pending;
    expect(await cache.get('k2', read('new'))).toBe('new');
    cache.clear();
    expect(await cache.get('k', read('d'))).toBe('d');
    expect(await cache.get('other', read('e'))).toBe('e');
  });

  it('changes of one key leave the others cached; over its size the cache starts over', async () => {
    await cache.get('a', read('a1'));
    await cache.get('b', read('b1'));
    await cache.change(['a'], () => Promise.resolve());
    expect(await cache.get('b', read('b2'))).toBe('b1');
    expect(await cache.get('a', read('a2'))).toBe('a2');

    const small = new ReadCache<string>({ maxAgeMs: 1_000, maxEntries: 2, now: () => time });
    await small.get('a', read('a'));
    await small.get('b', read('b'));
    await small.get('c', read('c'));
    const before = reads;
    expect(await small.get('c', read('c2'))).toBe('c');
    expect(await small.get('a', read('a2'))).toBe('a2');
    expect(reads).toBe(before + 1);
  });
});
