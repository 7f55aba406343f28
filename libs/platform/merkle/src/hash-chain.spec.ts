import { createHash } from 'node:crypto';
import { GENESIS_PREVIOUS_HASH, HashChainError, chainHash, findFirstBrokenIndex, findFirstChainBreak, type ChainEntry } from './index';

/** Builds a valid chain of `count` entries starting at `firstIndex` from `startPrevious`. */
function buildChain(count: number, startPrevious = GENESIS_PREVIOUS_HASH, firstIndex = 0): ChainEntry[] {
  const entries: ChainEntry[] = [];
  let previous = startPrevious;
  for (let i = 0; i < count; i++) {
    const index = firstIndex + i;
    const canonical = JSON.stringify({ action: 'consent.granted', index, subject: `user-${index}`, note: 'Grüße ✓' });
    const hash = chainHash(previous, canonical);
    entries.push({ index, previousHash: previous, hash, canonical });
    previous = hash;
  }
  return entries;
}

describe('chainHash', () => {
  it('is SHA-256 over the 32 predecessor bytes followed by the UTF-8 entry', () => {
    const previous = 'ab'.repeat(32);
    const entry = '{"a":"é"}';
    const expected = createHash('sha256')
      .update(Buffer.concat([Buffer.from(previous, 'hex'), Buffer.from(entry, 'utf8')]))
      .digest('hex');
    expect(chainHash(previous, entry)).toBe(expected);
    expect(chainHash(GENESIS_PREVIOUS_HASH, '')).toBe(createHash('sha256').update(Buffer.alloc(32)).digest('hex'));
  });

  it('has a genesis predecessor of 64 zeros', () => {
    expect(GENESIS_PREVIOUS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
  });

  it.each(['', 'ab', 'AB'.repeat(32), 'zz'.repeat(32), `${'00'.repeat(32)}\n`, '00'.repeat(33)])(
    'rejects the malformed predecessor %j',
    (previous) => {
      expect(() => chainHash(previous, '{}')).toThrow(HashChainError);
    },
  );

  it('rejects entries that would not encode to UTF-8 unambiguously', () => {
    expect(() => chainHash(GENESIS_PREVIOUS_HASH, 'a\uD800b')).toThrow(HashChainError);
    expect(chainHash(GENESIS_PREVIOUS_HASH, 'a\uD83D\uDE00b')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('findFirstBrokenIndex', () => {
  const chain = buildChain(8);

  it('accepts an intact chain, a suffix from its trusted predecessor, and an empty segment', () => {
    expect(findFirstBrokenIndex(chain, GENESIS_PREVIOUS_HASH)).toBeUndefined();
    expect(findFirstBrokenIndex(chain.slice(3), chain[2]!.hash)).toBeUndefined();
    expect(findFirstBrokenIndex([], GENESIS_PREVIOUS_HASH)).toBeUndefined();
  });

  it('reports a segment that does not start from the given predecessor at its first entry', () => {
    expect(findFirstChainBreak(chain.slice(3), chain[1]!.hash)).toEqual({ index: 3, reason: 'link_mismatch' });
    expect(findFirstBrokenIndex(chain, 'f'.repeat(64))).toBe(0);
  });

  it.each([0, 3, 7])('finds an entry whose canonical text was altered at index %i', (at) => {
    const tampered = chain.map((e) => (e.index === at ? { ...e, canonical: e.canonical.replace('granted', 'revoked') } : e));
    expect(findFirstChainBreak(tampered, GENESIS_PREVIOUS_HASH)).toEqual({ index: at, reason: 'hash_mismatch' });
  });

  it.each([0, 4, 7])('finds an entry whose text and hash were both rewritten at index %i', (at) => {
    const tampered = chain.map((e) => {
      if (e.index !== at) return e;
      const canonical = e.canonical.replace('granted', 'revoked');
      return { ...e, canonical, hash: chainHash(e.previousHash, canonical) };
    });
    // The rewritten entry is self-consistent; its successor's link no longer is.
    const expected = at === 7 ? undefined : { index: at + 1, reason: 'link_mismatch' };
    expect(findFirstChainBreak(tampered, GENESIS_PREVIOUS_HASH)).toEqual(expected);
  });

  it('finds an altered stored hash at its own index', () => {
    const tampered = chain.map((e) => (e.index === 5 ? { ...e, hash: 'a'.repeat(64) } : e));
    expect(findFirstChainBreak(tampered, GENESIS_PREVIOUS_HASH)).toEqual({ index: 5, reason: 'hash_mismatch' });
  });

  it.each([1, 4, 6])('finds a deleted entry %i at its successor', (at) => {
    const tampered = chain.filter((e) => e.index !== at);
    expect(findFirstChainBreak(tampered, GENESIS_PREVIOUS_HASH)).toEqual({ index: at + 1, reason: 'index_gap' });
    // Renumbering the rows to hide the gap still breaks the link at the same position.
    const renumbered = tampered.map((e, i) => ({ ...e, index: i }));
    expect(findFirstChainBreak(renumbered, GENESIS_PREVIOUS_HASH)).toEqual({ index: at, reason: 'link_mismatch' });
  });

  it('finds the first deleted entry of the chain', () => {
    expect(findFirstChainBreak(chain.slice(1), GENESIS_PREVIOUS_HASH)).toEqual({ index: 1, reason: 'link_mismatch' });
  });

  it.each([0, 2, 6])('finds entry %i swapped with its successor at the earlier index', (at) => {
    // The rows keep their positions (index column) but exchange their contents.
    const swapped = chain.map((e) => {
      const other = e.index === at ? chain[at + 1]! : e.index === at + 1 ? chain[at]! : e;
      return { ...other, index: e.index };
    });
    expect(findFirstBrokenIndex(swapped, GENESIS_PREVIOUS_HASH)).toBe(at);
    // Reordering whole rows is caught at the first row out of place.
    const reordered = [...chain];
    [reordered[at], reordered[at + 1]] = [reordered[at + 1]!, reordered[at]!];
    expect(findFirstBrokenIndex(reordered, GENESIS_PREVIOUS_HASH)).toBe(at + 1);
  });

  it('finds an inserted entry even when it links to its predecessor', () => {
    const forged = chainHash(chain[2]!.hash, '{"action":"forged"}');
    const tampered = [
      ...chain.slice(0, 3),
      { index: 3, previousHash: chain[2]!.hash, hash: forged, canonical: '{"action":"forged"}' },
      ...chain.slice(3).map((e) => ({ ...e, index: e.index + 1 })),
    ];
    expect(findFirstChainBreak(tampered, GENESIS_PREVIOUS_HASH)).toEqual({ index: 4, reason: 'link_mismatch' });
  });

  it('reports malformed stored values instead of throwing', () => {
    const badPrevious = chain.map((e) => (e.index === 0 ? { ...e, previousHash: 'XYZ' } : e));
    expect(findFirstChainBreak(badPrevious, 'XYZ')).toEqual({ index: 0, reason: 'malformed_entry' });
    const badText = chain.map((e) => (e.index === 2 ? { ...e, canonical: '\uDC00' } : e));
    expect(findFirstChainBreak(badText, GENESIS_PREVIOUS_HASH)).toEqual({ index: 2, reason: 'malformed_entry' });
    const upperCase = chain.map((e) => (e.index === 1 ? { ...e, hash: e.hash.toUpperCase() } : e));
    expect(findFirstChainBreak(upperCase, GENESIS_PREVIOUS_HASH)).toEqual({ index: 1, reason: 'hash_mismatch' });
  });

  it('follows the entries’ own index numbering', () => {
    const segment = buildChain(4, 'cd'.repeat(32), 1_000);
    expect(findFirstBrokenIndex(segment, 'cd'.repeat(32))).toBeUndefined();
    const tampered = segment.map((e) => (e.index === 1_002 ? { ...e, canonical: '{}' } : e));
    expect(findFirstBrokenIndex(tampered, 'cd'.repeat(32))).toBe(1_002);
  });
});
