/**
 * RFC 6962 / RFC 9162 Merkle tree hashing, proof construction and proof verification.
 *
 * Sizes and indexes are plain numbers and must be non-negative safe integers (below 2^53); the
 * verification arithmetic uses division, never 32-bit bitwise operators, so large logs are fine.
 * Builders take every leaf hash in memory (callers load them from storage); verifiers need only
 * the proof.
 */
import { MerkleError, type MerkleFailureReason } from './errors';
import { bytesEqual, isBytes, sha256 } from './encoding';

/** Size in bytes of every hash in the tree (SHA-256). */
export const HASH_SIZE = 32;

/** Longest proof a verifier will look at: no tree below 2^53 leaves needs more hashes. */
const MAX_PROOF_HASHES = 128;

const LEAF_PREFIX = new Uint8Array([0x00]);
const NODE_PREFIX = new Uint8Array([0x01]);

/** Root of the empty tree: SHA-256 of the empty string (RFC 9162 §2.1.1). */
export const EMPTY_TREE_ROOT: Uint8Array = sha256();

/** RFC 6962 leaf hash: SHA-256(0x00 || data). */
export function leafHash(data: Uint8Array): Uint8Array {
  return sha256(LEAF_PREFIX, data);
}

/** RFC 6962 interior node hash: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha256(NODE_PREFIX, left, right);
}

/** Merkle Tree Hash (RFC 9162 §2.1.1) of raw leaves; hashes each leaf with {@link leafHash}. */
export function merkleRoot(leaves: readonly Uint8Array[]): Uint8Array {
  return merkleRootFromHashes(leaves.map(leafHash));
}

/**
 * Merkle Tree Hash over already-computed leaf hashes (e.g. loaded from Postgres).
 * @throws {MerkleError} `invalid_hash_length` if a leaf hash is not 32 bytes.
 */
export function merkleRootFromHashes(leafHashes: readonly Uint8Array[]): Uint8Array {
  assertLeafHashes(leafHashes);
  return subtreeRoot(leafHashes, 0, leafHashes.length);
}

/** Audit path (RFC 9162 §2.1.3.1) for raw leaf `index` in the tree of all `leaves`. */
export function inclusionProof(index: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  return inclusionProofFromHashes(index, leaves.map(leafHash));
}

/**
 * Audit path for leaf `index` in the tree of `leafHashes`, ordered from the leaf's sibling up.
 * @throws {MerkleError} `index_out_of_range` unless 0 ≤ index < leafHashes.length;
 *   `invalid_hash_length` if a leaf hash is not 32 bytes.
 */
export function inclusionProofFromHashes(index: number, leafHashes: readonly Uint8Array[]): Uint8Array[] {
  if (!isCount(index) || index >= leafHashes.length) {
    throw new MerkleError('index_out_of_range', `leaf index ${String(index)} is outside a tree of ${leafHashes.length}`);
  }
  assertLeafHashes(leafHashes);
  const proof: Uint8Array[] = [];
  auditPath(leafHashes, index, 0, leafHashes.length, proof);
  return proof;
}

/** Consistency proof (RFC 9162 §2.1.4.1) from the first `oldSize` raw leaves to all `leaves`. */
export function consistencyProof(oldSize: number, leaves: readonly Uint8Array[]): Uint8Array[] {
  return consistencyProofFromHashes(oldSize, leaves.map(leafHash));
}

/**
 * Consistency proof from the tree of the first `oldSize` leaf hashes to the tree of all of them.
 * Empty when `oldSize` is 0 or equals the tree size (nothing to prove).
 * @throws {MerkleError} `invalid_tree_size` unless 0 ≤ oldSize ≤ leafHashes.length;
 *   `invalid_hash_length` if a leaf hash is not 32 bytes.
 */
export function consistencyProofFromHashes(oldSize: number, leafHashes: readonly Uint8Array[]): Uint8Array[] {
  if (!isCount(oldSize) || oldSize > leafHashes.length) {
    throw new MerkleError('invalid_tree_size', `old size ${String(oldSize)} is outside a tree of ${leafHashes.length}`);
  }
  assertLeafHashes(leafHashes);
  const proof: Uint8Array[] = [];
  if (oldSize > 0 && oldSize < leafHashes.length) subproof(leafHashes, oldSize, 0, leafHashes.length, true, proof);
  return proof;
}

/**
 * Checks an inclusion proof (RFC 9162 §2.1.3.2): that the leaf with hash `leafHash` sits at
 * `index` in the tree of `treeSize` leaves whose root is `root`.
 *
 * Never throws: any malformed input (index ≥ size, size 0, wrong proof length, hashes that are
 * not 32 bytes, non-integer numbers) returns `false`. Use {@link assertInclusion} for the reason.
 */
export function verifyInclusion(
  index: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean {
  return inclusionFailure(index, treeSize, leafHash, proof, root) === undefined;
}

/**
 * Like {@link verifyInclusion} but throws instead of returning `false`.
 * @throws {MerkleError} with the {@link MerkleFailureReason} of the first check that failed.
 */
export function assertInclusion(
  index: number,
  treeSize: number,
  leafHash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): void {
  const reason = inclusionFailure(index, treeSize, leafHash, proof, root);
  if (reason !== undefined) throw new MerkleError(reason, `inclusion proof rejected: ${reason}`);
}

/**
 * Checks a consistency proof (RFC 9162 §2.1.4.2): that the tree of `oldSize` leaves with root
 * `oldRoot` is a prefix of the tree of `newSize` leaves with root `newRoot`.
 *
 * Edge cases, beyond the RFC's 0 < oldSize < newSize: equal sizes need an empty proof and equal
 * root bytes; an old size of 0 is rejected (a proof from the empty tree proves nothing); oldSize >
 * newSize is rejected. These are transparency-dev/merkle's rules: its proof vectors pass
 * (`transparency-dev-vectors.spec.ts`).
 *
 * Never throws: malformed input returns `false`. Use {@link assertConsistency} for the reason.
 */
export function verifyConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean {
  return consistencyFailure(oldSize, newSize, oldRoot, newRoot, proof) === undefined;
}

/**
 * Like {@link verifyConsistency} but throws instead of returning `false`.
 * @throws {MerkleError} with the {@link MerkleFailureReason} of the first check that failed.
 */
export function assertConsistency(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): void {
  const reason = consistencyFailure(oldSize, newSize, oldRoot, newRoot, proof);
  if (reason !== undefined) throw new MerkleError(reason, `consistency proof rejected: ${reason}`);
}

function inclusionFailure(
  index: number,
  treeSize: number,
  hash: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): MerkleFailureReason | undefined {
  if (!isCount(treeSize)) return 'invalid_tree_size';
  if (!isCount(index) || index >= treeSize) return 'index_out_of_range';
  if (!isBytes(hash, HASH_SIZE) || !isBytes(root, HASH_SIZE)) return 'invalid_hash_length';
  const shape = proofShapeFailure(proof);
  if (shape !== undefined) return shape;

  let fn = index;
  let sn = treeSize - 1;
  let r = hash;
  for (const p of proof) {
    if (sn === 0) return 'invalid_proof_length';
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'invalid_proof_length';
  return bytesEqual(r, root) ? undefined : 'root_mismatch';
}

function consistencyFailure(
  oldSize: number,
  newSize: number,
  oldRoot: Uint8Array,
  newRoot: Uint8Array,
  proof: readonly Uint8Array[],
): MerkleFailureReason | undefined {
  // A proof from the empty tree proves nothing (transparency-dev/merkle rejects it too): callers
  // that accept a first tree head, as a tlog-witness does for `old 0`, handle that case themselves.
  if (!isCount(oldSize) || !isCount(newSize) || oldSize === 0 || oldSize > newSize) return 'invalid_tree_size';
  if (oldSize === newSize) {
    // A tree is consistent with itself: no proof, the same root bytes (as transparency-dev/merkle
    // decides; nothing is hashed, so the root's length does not matter here).
    if (!Array.isArray(proof) || proof.length !== 0) return 'invalid_proof_length';
    return oldRoot instanceof Uint8Array && newRoot instanceof Uint8Array && bytesEqual(oldRoot, newRoot) ? undefined : 'root_mismatch';
  }
  if (!isBytes(oldRoot, HASH_SIZE) || !isBytes(newRoot, HASH_SIZE)) return 'invalid_hash_length';
  const shape = proofShapeFailure(proof);
  if (shape !== undefined) return shape;

  if (proof.length === 0) return 'invalid_proof_length';

  const path = isPowerOfTwo(oldSize) ? [oldRoot, ...proof] : [...proof];
  let fn = oldSize - 1;
  let sn = newSize - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  const [first, ...rest] = path;
  if (first === undefined) return 'invalid_proof_length';
  let fr = first;
  let sr = first;
  for (const c of rest) {
    if (sn === 0) return 'invalid_proof_length';
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) return 'invalid_proof_length';
  return bytesEqual(fr, oldRoot) && bytesEqual(sr, newRoot) ? undefined : 'root_mismatch';
}

function proofShapeFailure(proof: readonly Uint8Array[]): MerkleFailureReason | undefined {
  if (!Array.isArray(proof) || proof.length > MAX_PROOF_HASHES) return 'invalid_proof_length';
  for (const p of proof) if (!isBytes(p, HASH_SIZE)) return 'invalid_hash_length';
  return undefined;
}

/** MTH(D[lo:hi]). */
function subtreeRoot(hashes: readonly Uint8Array[], lo: number, hi: number): Uint8Array {
  const n = hi - lo;
  if (n === 0) return EMPTY_TREE_ROOT;
  if (n === 1) return at(hashes, lo);
  const k = largestPowerOfTwoBelow(n);
  return nodeHash(subtreeRoot(hashes, lo, lo + k), subtreeRoot(hashes, lo + k, hi));
}

/** PATH(m, D[lo:hi]) with m relative to lo, appended bottom-up. */
function auditPath(hashes: readonly Uint8Array[], m: number, lo: number, hi: number, out: Uint8Array[]): void {
  const n = hi - lo;
  if (n <= 1) return;
  const k = largestPowerOfTwoBelow(n);
  if (m < k) {
    auditPath(hashes, m, lo, lo + k, out);
    out.push(subtreeRoot(hashes, lo + k, hi));
  } else {
    auditPath(hashes, m - k, lo + k, hi, out);
    out.push(subtreeRoot(hashes, lo, lo + k));
  }
}

/** SUBPROOF(m, D[lo:hi], b), appended bottom-up. */
function subproof(hashes: readonly Uint8Array[], m: number, lo: number, hi: number, complete: boolean, out: Uint8Array[]): void {
  const n = hi - lo;
  if (m === n) {
    if (!complete) out.push(subtreeRoot(hashes, lo, hi));
    return;
  }
  const k = largestPowerOfTwoBelow(n);
  if (m <= k) {
    subproof(hashes, m, lo, lo + k, complete, out);
    out.push(subtreeRoot(hashes, lo + k, hi));
  } else {
    subproof(hashes, m - k, lo + k, hi, false, out);
    out.push(subtreeRoot(hashes, lo, lo + k));
  }
}

function assertLeafHashes(leafHashes: readonly Uint8Array[]): void {
  leafHashes.forEach((hash, i) => {
    if (!isBytes(hash, HASH_SIZE)) throw new MerkleError('invalid_hash_length', `leaf hash ${i} is not ${HASH_SIZE} bytes`);
  });
}

function at(hashes: readonly Uint8Array[], i: number): Uint8Array {
  const hash = hashes[i];
  if (hash === undefined) throw new MerkleError('index_out_of_range', `no leaf hash at ${i}`);
  return hash;
}

/** Largest power of two strictly below n (n ≥ 2). */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function isOdd(n: number): boolean {
  return n % 2 === 1;
}

function half(n: number): number {
  return Math.floor(n / 2);
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && !isOdd(x)) x = half(x);
  return x === 1;
}
