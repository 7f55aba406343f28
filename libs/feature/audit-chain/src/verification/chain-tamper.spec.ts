/**
 * Issue 20 item 5: tamper detection at the exact index, over a 10 000-entry chain built with the
 * service's own canonical form (`canonicalEntry`) and link hash (`chainHash`), verified by the
 * `ChainVerifier` that `GET /api/v1/audit/verify` and `svc-audit verify` feed from Postgres.
 *
 * Six mutation classes (modify, delete, swap, insert, truncate, consistent rewrite of a suffix) at
 * ≥ 200 indexes each, drawn by fast-check with a fixed seed, always including 0, 1, the last index
 * and the last witnessed size (and the index just below it). Witnessed checkpoints are signed every
 * 250 entries up to the last witnessed size W; entries past W are not vouched for by anyone yet.
 *
 * Expected verdicts:
 * - modify → `hash_mismatch` at the index; delete → `missing_entry` at the index; swap of i and
 *   i+1 → `link_mismatch` at i; insert of a well-linked forged entry → `inserted_entry` at i;
 * - truncate below W → `truncated` at the first missing index (by the first checkpoint beyond);
 * - consistent rewrite (hashes recomputed) from i < W → `checkpoint_root_mismatch` by the first
 *   checkpoint past i, reported at the first index no verified checkpoint vouches for (the
 *   checkpoint size just at or below i: a Merkle root cannot name the leaf inside its segment);
 * - truncation, deleting the last entry or a consistent rewrite at or past W: nothing vouches for
 *   those entries yet, so the chain verifies (the documented limit: the next witnessed checkpoint
 *   catches it).
 *
 * The random cases resume from the verified state at the checkpoint just below the index (exactly
 * what `--from-checkpoint` does, the prefix being byte-identical), so ~1 300 verifications take
 * seconds; the named indexes are verified from genesis.
 */
import fc from 'fast-check';
import { GENESIS_PREVIOUS_HASH, chainHash, type ChainEntry } from '@svc/merkle';
import { canonicalEntry } from '../chain/audit-entry';
import { ChainVerifier, type ChainFailure, type CheckpointFact } from './chain-verifier';
import { MerkleFrontier, entryLeafHash } from './merkle-frontier';
import { VERIFY_CHUNK } from './verify-chain.use-case';

const SIZE = 10_000;
const LAST = SIZE - 1;
/** The last witnessed checkpoint's size. */
const WITNESSED = 8_765;
const SEED = 20_0005;
const RANDOM_INDEXES = 200;

const CLASSES = ['modify', 'delete', 'swap', 'insert', 'truncate', 'rewrite'] as const;
type MutationClass = (typeof CLASSES)[number];

const recordedAt = new Date('2026-01-01T00:00:00.000Z');

function canonicalAt(index: number, marker = 'consent.granted'): string {
  return canonicalEntry(
    { type: marker, applicationId: 'tp_us_tamper', sourceEventId: `evt_${index}`, data: { index, purpose: 'analytics' } },
    `audit_rec_${String(index).padStart(8, '0')}`,
    new Date(recordedAt.getTime() + index * 1000),
  );
}

function buildChain(): ChainEntry[] {
  const entries: ChainEntry[] = [];
  let previous = GENESIS_PREVIOUS_HASH;
  for (let index = 0; index < SIZE; index += 1) {
    const canonical =
      index === 0 ? canonicalEntry({ type: 'audit.genesis', data: { region: 'us' } }, 'audit_rec_genesis', recordedAt) : canonicalAt(index);
    const hash = chainHash(previous, canonical);
    entries.push({ index, previousHash: previous, hash, canonical });
    previous = hash;
  }
  return entries;
}

const chain = buildChain();

/** Checkpoint sizes: 1, 2, 3, every 250 up to W, and W itself (all witnessed). */
const checkpointSizes = [1, 2, 3, ...Array.from({ length: Math.floor(WITNESSED / 250) }, (_, k) => (k + 1) * 250), WITNESSED];

/** Checkpoint facts and the verifier state after each checkpoint's prefix (one pass). */
const { checkpoints, resumeAt } = (() => {
  const facts: CheckpointFact[] = [];
  const states = new Map<number, MerkleFrontier>([[0, new MerkleFrontier()]]);
  const frontier = new MerkleFrontier();
  let next = 0;
  for (const entry of chain) {
    frontier.push(entryLeafHash(entry.hash));
    if (frontier.size === checkpointSizes[next]) {
      facts.push({ sequence: next + 1, treeSize: frontier.size, rootHash: Buffer.from(frontier.root()).toString('hex') });
      states.set(frontier.size, frontier.clone());
      next += 1;
    }
  }
  return { checkpoints: facts, resumeAt: states };
})();

/** A tampered chain, produced lazily (a rewrite rehashes only what the verifier reads). */
interface TamperedChain {
  readonly length: number;
  slice(from: number, to: number): ChainEntry[];
}

function tamper(kind: MutationClass, index: number): TamperedChain {
  const original = { length: SIZE, slice: (from: number, to: number) => chain.slice(from, to) };
  switch (kind) {
    case 'modify':
      return {
        length: SIZE,
        slice: (from, to) =>
          chain.slice(from, to).map((e) => (e.index === index ? { ...e, canonical: e.canonical.replace('"v":1', '"v":2') } : e)),
      };
    case 'delete':
      return { length: SIZE - 1, slice: (from, to) => [...chain.slice(0, index), ...chain.slice(index + 1)].slice(from, to) };
    case 'swap': {
      const a = index === LAST ? index - 1 : index;
      const swapped = chain.slice(a, a + 2);
      const first = swapped[0] as ChainEntry;
      const second = swapped[1] as ChainEntry;
      const replaced = new Map([
        [a, { ...second, index: a }],
        [a + 1, { ...first, index: a + 1 }],
      ]);
      return { length: SIZE, slice: (from, to) => chain.slice(from, to).map((e) => replaced.get(e.index) ?? e) };
    }
    case 'insert': {
      const previous = index === 0 ? GENESIS_PREVIOUS_HASH : (chain[index - 1] as ChainEntry).hash;
      const canonical = canonicalAt(index, 'consent.withdrawn');
      const forged: ChainEntry = { index, previousHash: previous, hash: chainHash(previous, canonical), canonical };
      const at = (position: number): ChainEntry => {
        if (position < index) return chain[position] as ChainEntry;
        if (position === index) return forged;
        return { ...(chain[position - 1] as ChainEntry), index: position };
      };
      return {
        length: SIZE + 1,
        slice: (from, to) => Array.from({ length: Math.max(0, Math.min(to, SIZE + 1) - from) }, (_, k) => at(from + k)),
      };
    }
    case 'truncate':
      return { length: index, slice: (from, to) => chain.slice(from, Math.min(to, index)) };
    case 'rewrite': {
      // Rehash from `index` on, consistently: every stored link and hash verifies.
      const rewritten: ChainEntry[] = [];
      const at = (position: number): ChainEntry => {
        if (position < index) return chain[position] as ChainEntry;
        while (rewritten.length <= position - index) {
          const k = index + rewritten.length;
          const previous =
            k === 0
              ? GENESIS_PREVIOUS_HASH
              : k === index
                ? (chain[k - 1] as ChainEntry).hash
                : (rewritten[rewritten.length - 1] as ChainEntry).hash;
          const source = chain[k] as ChainEntry;
          const canonical = k === index ? source.canonical.replace('"v":1', '"v":2') : source.canonical;
          rewritten.push({ index: k, previousHash: previous, hash: chainHash(previous, canonical), canonical });
        }
        return rewritten[position - index] as ChainEntry;
      };
      return { length: SIZE, slice: (from, to) => Array.from({ length: Math.max(0, Math.min(to, SIZE) - from) }, (_, k) => at(from + k)) };
    }
    default:
      return original;
  }
}

/** Largest checkpoint size ≤ index (0: genesis). */
function vouchedBelow(index: number): number {
  let best = 0;
  for (const size of checkpointSizes) if (size <= index) best = size;
  return best;
}

/** Sequence of the first checkpoint larger than index. */
function checkpointAbove(index: number): number | undefined {
  return checkpoints.find((c) => c.treeSize > index)?.sequence;
}

function expected(kind: MutationClass, index: number): ChainFailure | undefined {
  switch (kind) {
    case 'modify':
      return { index, reason: 'hash_mismatch' };
    case 'delete':
      // The last entry is past W: deleting it is a truncation nothing vouches against yet.
      return index === LAST ? undefined : { index, reason: 'missing_entry' };
    case 'swap':
      return { index: index === LAST ? index - 1 : index, reason: 'link_mismatch' };
    case 'insert':
      return { index, reason: 'inserted_entry' };
    case 'truncate':
      return index < WITNESSED ? { index, reason: 'truncated', checkpointSequence: checkpointAbove(index) as number } : undefined;
    case 'rewrite':
      return index < WITNESSED
        ? { index: vouchedBelow(index), reason: 'checkpoint_root_mismatch', checkpointSequence: checkpointAbove(index) as number }
        : undefined;
  }
}

/** Feeds the tampered chain from `start` in chunks of `chunk` entries, as VerifyChain does. */
function verify(tampered: TamperedChain, start: number, chunk: number): ChainFailure | undefined {
  const frontier = resumeAt.get(start);
  if (!frontier) throw new Error(`no verified state at ${start}`);
  const previousHash = start === 0 ? GENESIS_PREVIOUS_HASH : (chain[start - 1] as ChainEntry).hash;
  const verifier = new ChainVerifier({ index: start, previousHash, frontier: frontier.clone() }, checkpoints);
  for (let from = start; from < tampered.length; from += chunk) {
    const failure = verifier.feed(tampered.slice(from, from + chunk));
    if (failure) return failure;
  }
  return verifier.finish();
}

describe('audit chain tamper detection at the exact index (10 000 entries, issue 20 item 5)', () => {
  const named = [0, 1, 2, WITNESSED - 1, WITNESSED, LAST];
  const random = new Set<number>(named);
  for (const index of fc.sample(fc.integer({ min: 0, max: LAST }), { numRuns: RANDOM_INDEXES * 3, seed: SEED })) {
    if (random.size >= RANDOM_INDEXES + named.length) break;
    random.add(index);
  }
  const indexes = [...random].sort((a, b) => a - b);
  const chunks = fc.sample(fc.integer({ min: 1, max: 700 }), { numRuns: indexes.length, seed: SEED + 1 });

  it('verifies the intact chain from genesis, with every checkpoint', () => {
    const verifier = new ChainVerifier({ index: 0, previousHash: GENESIS_PREVIOUS_HASH }, checkpoints);
    for (let from = 0; from < SIZE; from += VERIFY_CHUNK) expect(verifier.feed(chain.slice(from, from + VERIFY_CHUNK))).toBeUndefined();
    expect(verifier.finish()).toBeUndefined();
    expect(verifier.checkpointsVerified).toBe(checkpoints.length);
    expect(indexes.length).toBeGreaterThanOrEqual(RANDOM_INDEXES);
    expect(indexes).toEqual(expect.arrayContaining(named));
  });

  it.each(CLASSES)('%s: from genesis, at 0, 1, 2, W-1, W and the last index', (kind) => {
    for (const index of named) {
      expect({ index, found: verify(tamper(kind, index), 0, VERIFY_CHUNK) }).toEqual({ index, found: expected(kind, index) });
    }
  });

  it.each(CLASSES)('%s: at ≥ 200 random indexes (fixed seed), resuming from the checkpoint below', (kind) => {
    let detected = 0;
    indexes.forEach((index, k) => {
      const want = expected(kind, index);
      const found = verify(tamper(kind, index), vouchedBelow(index), chunks[k] ?? 500);
      expect({ index, found }).toEqual({ index, found: want });
      if (found) detected += 1;
    });
    // Undetected cases are only the unwitnessed tail (index ≥ W) of truncate / rewrite / delete-last.
    if (kind === 'truncate' || kind === 'rewrite') expect(detected).toBe(indexes.filter((i) => i < WITNESSED).length);
    else if (kind === 'delete') expect(detected).toBe(indexes.length - 1);
    else expect(detected).toBe(indexes.length);
  });
});
