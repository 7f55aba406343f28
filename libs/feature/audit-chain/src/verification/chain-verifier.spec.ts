import { GENESIS_PREVIOUS_HASH, chainHash, merkleRootFromHashes, type ChainEntry } from '@svc/merkle';
import { ChainVerifier, type CheckpointFact } from './chain-verifier';
import { MerkleFrontier, entryLeafHash } from './merkle-frontier';

function buildChain(count: number): ChainEntry[] {
  const entries: ChainEntry[] = [];
  let previous = GENESIS_PREVIOUS_HASH;
  for (let index = 0; index < count; index += 1) {
    const canonical = JSON.stringify({ index, type: 'consent.granted' });
    const hash = chainHash(previous, canonical);
    entries.push({ index, previousHash: previous, hash, canonical });
    previous = hash;
  }
  return entries;
}

function checkpointOf(entries: readonly ChainEntry[], size: number, sequence = 1): CheckpointFact {
  const root = merkleRootFromHashes(entries.slice(0, size).map((e) => entryLeafHash(e.hash)));
  return { sequence, treeSize: size, rootHash: Buffer.from(root).toString('hex') };
}

function verify(entries: readonly ChainEntry[], checkpoints: readonly CheckpointFact[] = [], chunk = 4) {
  const verifier = new ChainVerifier({ index: 0, previousHash: GENESIS_PREVIOUS_HASH }, checkpoints);
  for (let i = 0; i < entries.length; i += chunk) {
    const failure = verifier.feed(entries.slice(i, i + chunk));
    if (failure) return failure;
  }
  return verifier.finish();
}

describe('MerkleFrontier (RFC 9162 root, streamed)', () => {
  it('gives the same root as merkleRootFromHashes for every size from 1 to 70', () => {
    const chain = buildChain(70);
    const frontier = new MerkleFrontier();
    chain.forEach((entry, i) => {
      frontier.push(entryLeafHash(entry.hash));
      const expected = merkleRootFromHashes(chain.slice(0, i + 1).map((e) => entryLeafHash(e.hash)));
      expect(Buffer.from(frontier.root()).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    });
  });

  it('refuses a leaf that is not 32 bytes', () => {
    expect(() => new MerkleFrontier().push(new Uint8Array(31))).toThrow('32 bytes');
  });
});

describe('ChainVerifier (issue 9: tamper detected at its exact index)', () => {
  const chain = buildChain(23);

  it('accepts an intact chain and every checkpoint on it, in any chunking', () => {
    for (const chunk of [1, 4, 7, 100]) {
      expect(verify(chain, [checkpointOf(chain, 5, 1), checkpointOf(chain, 16, 2), checkpointOf(chain, 23, 3)], chunk)).toBeUndefined();
    }
  });

  it.each([0, 1, 11, 22])('reports an altered entry at its index %i (hash_mismatch)', (index) => {
    const tampered = chain.map((e) => (e.index === index ? { ...e, canonical: e.canonical.replace('granted', 'denied') } : e));
    expect(verify(tampered)).toEqual({ index, reason: 'hash_mismatch' });
  });

  it.each([0, 1, 11, 21])('reports a deleted entry at its own index %i (missing_entry)', (index) => {
    const tampered = chain.filter((e) => e.index !== index);
    expect(verify(tampered)).toEqual({ index, reason: 'missing_entry' });
  });

  it.each([0, 5, 11, 21])('reports two swapped entries at the earlier index %i (link_mismatch)', (index) => {
    const tampered = chain.map((e) => ({ ...e }));
    const a = tampered[index] as ChainEntry;
    const b = tampered[index + 1] as ChainEntry;
    tampered[index] = { ...b, index: a.index };
    tampered[index + 1] = { ...a, index: b.index };
    expect(verify(tampered)).toEqual({ index, reason: 'link_mismatch' });
  });

  it('reports a rewrite with recomputed hashes through the signed checkpoint root', () => {
    const checkpoints = [checkpointOf(chain, 8, 1), checkpointOf(chain, 20, 2)];
    // Rewrite entry 12 and recompute every hash after it: the links verify, the root does not.
    const rewritten: ChainEntry[] = chain.slice(0, 12);
    let previous = (chain[11] as ChainEntry).hash;
    for (const entry of chain.slice(12)) {
      const canonical = entry.index === 12 ? entry.canonical.replace('granted', 'denied') : entry.canonical;
      const hash = chainHash(previous, canonical);
      rewritten.push({ index: entry.index, previousHash: previous, hash, canonical });
      previous = hash;
    }
    expect(verify(rewritten, checkpoints)).toEqual({ index: 8, reason: 'checkpoint_root_mismatch', checkpointSequence: 2 });
  });

  it('reports entries cut off below a checkpoint as truncated at the first missing index', () => {
    expect(verify(chain.slice(0, 19), [checkpointOf(chain, 23, 4)])).toEqual({ index: 19, reason: 'truncated', checkpointSequence: 4 });
  });

  it('reports a stored previous hash that is not hex as a broken link at its index', () => {
    const tampered = chain.map((e) => (e.index === 3 ? { ...e, previousHash: 'zz' } : e));
    expect(verify(tampered)).toEqual({ index: 3, reason: 'link_mismatch' });
  });

  it('resumes from a trusted checkpoint head with its frontier', () => {
    const frontier = new MerkleFrontier();
    chain.slice(0, 10).forEach((e) => frontier.push(entryLeafHash(e.hash)));
    const verifier = new ChainVerifier({ index: 10, previousHash: (chain[9] as ChainEntry).hash, frontier }, [checkpointOf(chain, 23, 2)]);
    expect(verifier.feed(chain.slice(10))).toBeUndefined();
    expect(verifier.finish()).toBeUndefined();
    expect(verifier.checkpointsVerified).toBe(1);
    expect(verifier.verifiedSize).toBe(23);
  });

  it('reports a chunk that starts past the expected index as the missing index', () => {
    const verifier = new ChainVerifier({ index: 0, previousHash: GENESIS_PREVIOUS_HASH }, []);
    expect(verifier.feed(chain.slice(0, 4))).toBeUndefined();
    expect(verifier.feed(chain.slice(6))).toEqual({ index: 4, reason: 'missing_entry' });
    // The first failure sticks.
    expect(verifier.feed(chain.slice(6))).toEqual({ index: 4, reason: 'missing_entry' });
  });
});
