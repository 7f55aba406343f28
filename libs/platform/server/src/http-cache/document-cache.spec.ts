import { DocumentCache, cachedDocumentOf, ifNoneMatches } from './document-cache';

describe('DocumentCache', () => {
  let now = 0;
  const cache = () => new DocumentCache<string>({ maxEntries: 2, maxAgeMs: 1_000, now: () => now });

  beforeEach(() => {
    now = 0;
  });

  it('keeps the most recently used entries within its size', () => {
    const c = cache();
    c.set('a', 'A');
    c.set('b', 'B');
    expect(c.get('a')).toBe('A');
    c.set('c', 'C');
    expect([c.get('a'), c.get('b'), c.get('c'), c.size]).toEqual(['A', undefined, 'C', 2]);
  });

  it('keeps the order of use through repeated reads, deletions and expiries', () => {
    const c = new DocumentCache<string>({ maxEntries: 3, maxAgeMs: 1_000, now: () => now });
    c.set('a', 'A');
    c.set('b', 'B');
    c.set('c', 'C');
    c.get('a');
    c.get('a');
    c.delete('a');
    c.set('a', 'A');
    c.get('b');
    c.get('b');
    // Least recently used first: c, then a, then b.
    c.set('d', 'D');
    expect([c.get('c'), c.size]).toEqual([undefined, 3]);
    c.get('a');
    c.set('e', 'E');
    expect([c.get('b'), c.get('a'), c.get('d'), c.get('e')]).toEqual([undefined, 'A', 'D', 'E']);
    now = 1_000;
    expect(c.get('e')).toBeUndefined();
    now = 0;
    c.set('e', 'E');
    c.get('a');
    c.set('f', 'F');
    expect([c.get('d'), c.get('a'), c.get('e'), c.get('f')]).toEqual([undefined, 'A', 'E', 'F']);
  });

  it('reads an entry again once it reached its maximum age', async () => {
    const c = cache();
    const loader = jest.fn(async () => 'v1');
    expect(await c.load('k', loader)).toBe('v1');
    now = 999;
    expect(await c.load('k', loader)).toBe('v1');
    expect(loader).toHaveBeenCalledTimes(1);
    now = 1_000;
    expect(c.get('k')).toBeUndefined();
    expect(await c.load('k', loader)).toBe('v1');
    expect(loader).toHaveBeenCalledTimes(2);
  });

  it('stores no undefined value, and none loaded while an invalidation happened', async () => {
    const c = cache();
    expect(await c.load('missing', async () => undefined)).toBeUndefined();
    expect(c.size).toBe(0);
    let release!: (value: string) => void;
    const loading = c.load('k', () => new Promise<string>((resolve) => (release = resolve)));
    c.delete('k');
    release('stale');
    expect(await loading).toBe('stale');
    expect(c.get('k')).toBeUndefined();
  });

  it('drops the entries a predicate names, or all', () => {
    const c = new DocumentCache<{ app: string }>({ maxEntries: 10, maxAgeMs: 1_000, now: () => now });
    c.set('a1', { app: 'x' });
    c.set('a2', { app: 'y' });
    c.set('a3', { app: 'x' });
    c.deleteWhere((value) => value.app === 'x');
    expect([c.get('a1'), c.get('a2'), c.get('a3')]).toEqual([undefined, { app: 'y' }, undefined]);
    c.clear();
    expect(c.size).toBe(0);
  });
});

describe('cachedDocumentOf and ifNoneMatches', () => {
  const { body, etag } = cachedDocumentOf('{"a":1}');

  it('tags a body with the quoted base64url SHA-256 of its bytes', () => {
    expect(body).toBe('{"a":1}');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(cachedDocumentOf('{"a":2}').etag).not.toBe(etag);
  });

  it.each([
    [etag, true],
    [`W/${etag}`, true],
    [`"x", ${etag}`, true],
    [[`"x"`, etag], true],
    ['*', true],
    [' * ', true],
    ['"x"', false],
    ['', false],
    [undefined, false],
  ])('If-None-Match %p matches: %p', (header, expected) => {
    expect(ifNoneMatches(header, etag)).toBe(expected);
  });
});
