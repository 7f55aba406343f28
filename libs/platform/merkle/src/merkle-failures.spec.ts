import vectors from './test-vectors/rfc6962-merkle-roots.json';
import {
  EMPTY_TREE_ROOT,
  MerkleError,
  assertConsistency,
  assertInclusion,
  consistencyProof,
  consistencyProofFromHashes,
  inclusionProof,
  inclusionProofFromHashes,
  leafHash,
  merkleRootFromHashes,
  verifyConsistency,
  verifyInclusion,
} from './index';

const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const leaves = vectors.leaves_hex.map(unhex);
const rootOf = (size: number): Uint8Array => unhex((vectors.roots_by_tree_size as Record<string, string>)[String(size)]!);
const OTHER = new Uint8Array(32).fill(7);

/** The reason and message of the MerkleError `run` throws. */
function rejection(run: () => unknown): { reason: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MerkleError);
    const { reason, message, name } = error as MerkleError;
    expect(name).toBe('MerkleError');
    return { reason, message };
  }
  throw new Error('accepted');
}

describe('Merkle proof rejections name their reason', () => {
  describe('consistency', () => {
    const proof = consistencyProof(3, leaves.slice(0, 7));
    const consistency = (reason: string) => ({ reason, message: `consistency proof rejected: ${reason}` });

    it.each([
      ['an old size above the new', () => assertConsistency(7, 3, rootOf(7), rootOf(3), []), 'invalid_tree_size'],
      ['a negative old size', () => assertConsistency(-1, 3, rootOf(3), rootOf(3), []), 'invalid_tree_size'],
      ['a fractional new size', () => assertConsistency(3, 7.5, rootOf(3), rootOf(7), proof), 'invalid_tree_size'],
      ['a short old root', () => assertConsistency(3, 7, rootOf(3).subarray(1), rootOf(7), proof), 'invalid_hash_length'],
      ['a short new root', () => assertConsistency(3, 7, rootOf(3), rootOf(7).subarray(1), proof), 'invalid_hash_length'],
      ['a proof that is not a list', () => assertConsistency(3, 7, rootOf(3), rootOf(7), 'proof' as never), 'invalid_proof_length'],
      [
        'a proof of 129 hashes',
        () =>
          assertConsistency(
            3,
            7,
            rootOf(3),
            rootOf(7),
            Array.from({ length: 129 }, () => OTHER),
          ),
        'invalid_proof_length',
      ],
      [
        'a short proof hash',
        () => assertConsistency(3, 7, rootOf(3), rootOf(7), [proof[0]!, proof[1]!.subarray(1), proof[2]!]),
        'invalid_hash_length',
      ],
      ['a proof between equal sizes', () => assertConsistency(4, 4, rootOf(4), rootOf(4), [OTHER]), 'invalid_proof_length'],
      ['different roots at equal sizes', () => assertConsistency(4, 4, rootOf(4), OTHER, []), 'root_mismatch'],
      ['a proof from the empty tree', () => assertConsistency(0, 4, EMPTY_TREE_ROOT, rootOf(4), [OTHER]), 'invalid_tree_size'],
      ['an empty proof from the empty tree', () => assertConsistency(0, 4, EMPTY_TREE_ROOT, rootOf(4), []), 'invalid_tree_size'],
      ['an empty proof between different sizes', () => assertConsistency(3, 7, rootOf(3), rootOf(7), []), 'invalid_proof_length'],
      ['a proof one hash short', () => assertConsistency(3, 7, rootOf(3), rootOf(7), proof.slice(0, -1)), 'invalid_proof_length'],
      ['a proof one hash long', () => assertConsistency(3, 7, rootOf(3), rootOf(7), [...proof, OTHER]), 'invalid_proof_length'],
      ['a tampered proof', () => assertConsistency(3, 7, rootOf(3), rootOf(7), [OTHER, ...proof.slice(1)]), 'root_mismatch'],
    ])('%s', (_name, run, reason) => {
      expect(rejection(run)).toEqual(consistency(reason));
    });

    it('accepts from a power-of-two old size, whose root is the first step of the path', () => {
      const fromFour = consistencyProof(4, leaves.slice(0, 7));
      expect(() => assertConsistency(4, 7, rootOf(4), rootOf(7), fromFour)).not.toThrow();
      expect(rejection(() => assertConsistency(4, 7, OTHER, rootOf(7), fromFour))).toEqual(consistency('root_mismatch'));
      expect(verifyConsistency(4, 7, rootOf(4), rootOf(7), [rootOf(4), ...fromFour])).toBe(false);
    });
  });

  describe('inclusion', () => {
    const tree = leaves.slice(0, 6);
    const proof = inclusionProof(4, tree);
    const leaf = leafHash(tree[4]!);
    const inclusion = (reason: string) => ({ reason, message: `inclusion proof rejected: ${reason}` });

    it.each([
      ['a fractional tree size', () => assertInclusion(4, 6.5, leaf, proof, rootOf(6)), 'invalid_tree_size'],
      ['an index at the tree size', () => assertInclusion(6, 6, leaf, proof, rootOf(6)), 'index_out_of_range'],
      ['a short leaf hash', () => assertInclusion(4, 6, leaf.subarray(1), proof, rootOf(6)), 'invalid_hash_length'],
      ['a short root', () => assertInclusion(4, 6, leaf, proof, rootOf(6).subarray(1)), 'invalid_hash_length'],
      ['a proof that is not a list', () => assertInclusion(4, 6, leaf, {} as never, rootOf(6)), 'invalid_proof_length'],
      [
        'a proof of 129 hashes',
        () =>
          assertInclusion(
            4,
            6,
            leaf,
            Array.from({ length: 129 }, () => OTHER),
            rootOf(6),
          ),
        'invalid_proof_length',
      ],
      ['a short proof hash', () => assertInclusion(4, 6, leaf, [proof[0]!.subarray(2), proof[1]!], rootOf(6)), 'invalid_hash_length'],
      ['another root', () => assertInclusion(4, 6, leaf, proof, rootOf(5)), 'root_mismatch'],
    ])('%s', (_name, run, reason) => {
      expect(rejection(run)).toEqual(inclusion(reason));
    });

    it('verifies the last leaf of an odd tree, and not with its sibling swapped in', () => {
      const last = inclusionProof(4, leaves.slice(0, 5));
      expect(verifyInclusion(4, 5, leafHash(leaves[4]!), last, rootOf(5))).toBe(true);
      expect(verifyInclusion(3, 5, leafHash(leaves[4]!), last, rootOf(5))).toBe(false);
    });
  });

  describe('builders', () => {
    it('name the index, size or leaf hash they refuse', () => {
      const hashes = leaves.slice(0, 3).map(leafHash);
      expect(rejection(() => inclusionProofFromHashes(3, hashes))).toEqual({
        reason: 'index_out_of_range',
        message: 'leaf index 3 is outside a tree of 3',
      });
      expect(rejection(() => inclusionProofFromHashes(0.5, hashes))).toMatchObject({ reason: 'index_out_of_range' });
      expect(rejection(() => consistencyProofFromHashes(4, hashes))).toEqual({
        reason: 'invalid_tree_size',
        message: 'old size 4 is outside a tree of 3',
      });
      expect(rejection(() => consistencyProofFromHashes(1.5, hashes))).toMatchObject({ reason: 'invalid_tree_size' });
      expect(rejection(() => merkleRootFromHashes([hashes[0]!, new Uint8Array(31)]))).toEqual({
        reason: 'invalid_hash_length',
        message: 'leaf hash 1 is not 32 bytes',
      });
      expect(rejection(() => inclusionProofFromHashes(0, [new Uint8Array(31)]))).toMatchObject({ reason: 'invalid_hash_length' });
      expect(rejection(() => consistencyProofFromHashes(1, [hashes[0]!, new Uint8Array(33)]))).toMatchObject({
        reason: 'invalid_hash_length',
      });
    });

    it('build an empty proof for a one-leaf tree and between equal sizes', () => {
      expect(inclusionProof(0, leaves.slice(0, 1))).toEqual([]);
      expect(consistencyProof(3, leaves.slice(0, 3))).toEqual([]);
      expect(merkleRootFromHashes([])).toEqual(EMPTY_TREE_ROOT);
    });
  });
});
