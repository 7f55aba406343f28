/**
 * The audit trail's hash chain: each entry's hash commits to its predecessor's hash and to the
 * entry's canonical serialization, so altering, deleting, inserting or reordering stored entries
 * breaks the chain at the first affected entry.
 */
import { createHash } from 'node:crypto';
import { HashChainError } from './errors';
import { isWellFormedUnicode } from './encoding';

/** The predecessor hash of the first entry of a chain: 32 zero bytes, as 64 hex zeros. */
export const GENESIS_PREVIOUS_HASH = '0'.repeat(64);

const LOWER_HEX_64 = /^[0-9a-f]{64}$/;

/**
 * Next link of the chain: lower-case hex SHA-256 over the 32 bytes of `previousHashHex`
 * followed by the UTF-8 bytes of `canonicalEntry`.
 * @throws {HashChainError} if `previousHashHex` is not 64 lower-case hex digits, or
 *   `canonicalEntry` has an unpaired surrogate (it would not encode to UTF-8 unambiguously).
 */
export function chainHash(previousHashHex: string, canonicalEntry: string): string {
  if (typeof previousHashHex !== 'string' || !LOWER_HEX_64.test(previousHashHex)) {
    throw new HashChainError('previous hash must be 64 lower-case hex digits');
  }
  if (typeof canonicalEntry !== 'string' || !isWellFormedUnicode(canonicalEntry)) {
    throw new HashChainError('canonical entry must be a well-formed Unicode string');
  }
  return createHash('sha256').update(Buffer.from(previousHashHex, 'hex')).update(canonicalEntry, 'utf8').digest('hex');
}

/** A stored audit entry as read back for verification, in chain order. */
export interface ChainEntry {
  /** Position in the chain; consecutive entries have consecutive indexes. */
  readonly index: number;
  /** Stored hash of the predecessor (hex). */
  readonly previousHash: string;
  /** Stored hash of this entry (hex). */
  readonly hash: string;
  /** Stored canonical serialization the hash was computed over. */
  readonly canonical: string;
}

/**
 * What is wrong with the first broken entry:
 * - `index_gap`: its index does not follow its predecessor's (an entry was deleted or inserted);
 * - `link_mismatch`: its stored previous hash is not the predecessor's hash (or `startPrevious`);
 * - `hash_mismatch`: its stored hash does not recompute from its link and canonical entry;
 * - `malformed_entry`: its previous hash is not hex or its canonical text is not well-formed.
 */
export type ChainBreakReason = 'index_gap' | 'link_mismatch' | 'hash_mismatch' | 'malformed_entry';

/** The first entry of a chain segment that fails verification. */
export interface ChainBreak {
  /** The `index` of the failing entry. */
  readonly index: number;
  readonly reason: ChainBreakReason;
}

/**
 * Walks `entries` (in chain order) from `startPrevious` (the {@link GENESIS_PREVIOUS_HASH} for a
 * chain's first entry, or the trusted hash of the entry before the segment) and reports the first
 * entry that does not verify. Never throws for bad stored data; every failure is reported.
 *
 * A deleted entry is reported at its successor (whose index jumps and whose link no longer
 * matches); an altered entry at itself; two swapped entries at the earlier position.
 */
export function findFirstChainBreak(entries: readonly ChainEntry[], startPrevious: string): ChainBreak | undefined {
  let expectedPrevious = startPrevious;
  let previousIndex: number | undefined;
  for (const entry of entries) {
    if (previousIndex !== undefined && entry.index !== previousIndex + 1) {
      return { index: entry.index, reason: 'index_gap' };
    }
    if (entry.previousHash !== expectedPrevious) return { index: entry.index, reason: 'link_mismatch' };
    let recomputed: string;
    try {
      recomputed = chainHash(entry.previousHash, entry.canonical);
    } catch {
      return { index: entry.index, reason: 'malformed_entry' };
    }
    if (recomputed !== entry.hash) return { index: entry.index, reason: 'hash_mismatch' };
    expectedPrevious = entry.hash;
    previousIndex = entry.index;
  }
  return undefined;
}

/**
 * The `index` of the first entry whose stored hash or link does not recompute, or `undefined`
 * when the whole segment verifies. See {@link findFirstChainBreak} for the reason as well.
 */
export function findFirstBrokenIndex(entries: readonly ChainEntry[], startPrevious: string): number | undefined {
  return findFirstChainBreak(entries, startPrevious)?.index;
}
