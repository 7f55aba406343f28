import { createHash } from 'node:crypto';
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
  merkleRoot,
  merkleRootFromHashes,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
} from './index';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const unhex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const leaves = vectors.leaves_hex.map(unhex);
const rootOf = (size: number): Uint8Array => unhex((vectors.roots_by_tree_size as Record<string, string>)[String(size)]!);
const SIZES = [1, 2, 3, 4, 5, 6, 7, 8];
const SOME_HASH = unhex('abacaba000000000000000000000000000000000000000000060061e00123456');

/** A copy of `proof` with bit `mask` of byte `byte` of element `element` flipped. */
function flip(proof: readonly Uint8Array[], element: number, byte = 0, mask = 0x08): Uint8Array[] {
  return proof.map((h, i) => {
    if (i !== element) return h;
    const copy = new Uint8Array(h);
    copy[byte] = copy[byte]! ^ mask;
    return copy;
  });
}

function flipped(hash: Uint8Array, byte = 31): Uint8Array {
  const copy = new Uint8Array(hash);
  copy[byte] = copy[byte]! ^ 0x01;
  return copy;
}

describe('RFC 6962 hashing', () => {
  it('hashes leaves with a 0x00 prefix and nodes with a 0x01 prefix', () => {
    const sha = (...parts: Uint8Array[]) => createHash('sha256').update(Buffer.concat(parts)).digest('hex');
    const a = unhex('0102');
    const b = unhex('0304');
    expect(hex(leafHash(a))).toBe(sha(unhex('00'), a));
    expect(hex(nodeHash(a, b))).toBe(sha(unhex('01'), a, b));
    expect(hex(nodeHash(a, b))).not.toBe(hex(nodeHash(b, a)));
  });

  it('gives the empty tree the SHA-256 of the empty string', () => {
    expect(hex(merkleRoot([]))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(merkleRootFromHashes([]))).toBe(hex(EMPTY_TREE_ROOT));
  });

  it.each(SIZES)('matches the published root for the first %i test leaves', (size) => {
    const expected = hex(rootOf(size));
    expect(hex(merkleRoot(leaves.slice(0, size)))).toBe(expected);
    expect(hex(merkleRootFromHashes(leaves.slice(0, size).map(leafHash)))).toBe(expected);
  });

  it('rejects leaf hashes that are not 32 bytes', () => {
    expect(() => merkleRootFromHashes([new Uint8Array(31)])).toThrow(MerkleError);
    expect(() => inclusionProofFromHashes(0, [new Uint8Array(33)])).toThrow(MerkleError);
  });
});

describe('inclusion proofs (RFC 9162 §2.1.3)', () => {
  // transparency-dev/merkle proof/verify_test.go `inclusionProofs` (0-based leaf index here).
  const known: [number, number, string[]][] = [
    [
      0,
      8,
      [
        '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
        '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
        '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
      ],
    ],
    [
      5,
      8,
      [
        'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
        'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
        'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      ],
    ],
    [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
    [
      1,
      5,
      [
        '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
        '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
        'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      ],
    ],
  ];

  it.each(known)('builds the published proof for leaf %i of %i, which fails at another size', (index, size, proofHex) => {
    const proof = inclusionProof(index, leaves.slice(0, size));
    expect(proof.map(hex)).toEqual(proofHex);
    const leaf = leafHash(leaves[index]!);
    expect(verifyInclusion(index, size, leaf, proof, rootOf(size))).toBe(true);
    expect(verifyInclusion(index, size * 2, leaf, proof, rootOf(size))).toBe(false);
    expect(verifyInclusion(index, Math.floor(size / 2), leaf, proof, rootOf(size))).toBe(false);
  });

  const cases = SIZES.flatMap((size) => Array.from({ length: size }, (_, index) => [index, size] as const));

  it.each(cases)('leaf %i of a %i-leaf tree verifies, and fails once anything is tampered', (index, size) => {
    const tree = leaves.slice(0, size);
    const hashes = tree.map(leafHash);
    const proof = inclusionProof(index, tree);
    const leaf = hashes[index]!;
    const root = rootOf(size);
    expect(inclusionProofFromHashes(index, hashes).map(hex)).toEqual(proof.map(hex));

    expect(verifyInclusion(index, size, leaf, proof, root)).toBe(true);
    expect(() => assertInclusion(index, size, leaf, proof, root)).not.toThrow();

    for (let element = 0; element < proof.length; element++) {
      for (const byte of [0, 17, 31]) {
        expect(verifyInclusion(index, size, leaf, flip(proof, element, byte), root)).toBe(false);
      }
    }
    for (let other = 0; other <= size; other++) {
      if (other !== index) expect(verifyInclusion(other, size, leaf, proof, root)).toBe(false);
    }
    expect(verifyInclusion(index, size, leaf, proof, flipped(root))).toBe(false);
    expect(verifyInclusion(index, size, leaf, proof, SOME_HASH)).toBe(false);
    expect(verifyInclusion(index, size, flipped(leaf, 0), proof, root)).toBe(false);
    expect(verifyInclusion(index, size, leaf, [...proof, root], root)).toBe(false);
    expect(verifyInclusion(index, size, leaf, [root, ...proof], root)).toBe(false);
    if (proof.length > 0) {
      expect(verifyInclusion(index, size, leaf, proof.slice(0, -1), root)).toBe(false);
      expect(verifyInclusion(index, size, leaf, [proof[0]!, SOME_HASH, ...proof.slice(1)], root)).toBe(false);
    }
  });

  it('reports why a proof was rejected', () => {
    const tree = leaves.slice(0, 5);
    const proof = inclusionProof(2, tree);
    const leaf = leafHash(tree[2]!);
    const reason = (fn: () => void): string | undefined => {
      try {
        fn();
        return undefined;
      } catch (error) {
        return error instanceof MerkleError ? error.reason : 'not a MerkleError';
      }
    };
    expect(reason(() => assertInclusion(2, 5, leaf, proof, rootOf(5)))).toBeUndefined();
    expect(reason(() => assertInclusion(2, 5, leaf, proof, rootOf(4)))).toBe('root_mismatch');
    expect(reason(() => assertInclusion(5, 5, leaf, proof, rootOf(5)))).toBe('index_out_of_range');
    expect(reason(() => assertInclusion(2, 5, leaf, proof.slice(1), rootOf(5)))).toBe('invalid_proof_length');
    expect(reason(() => assertInclusion(2, 5, leaf, [...proof, leaf], rootOf(5)))).toBe('invalid_proof_length');
    expect(reason(() => assertInclusion(2, 5, leaf, [new Uint8Array(31), ...proof.slice(1)], rootOf(5)))).toBe('invalid_hash_length');
    expect(reason(() => assertInclusion(2, -5, leaf, proof, rootOf(5)))).toBe('invalid_tree_size');
  });

  it('returns false, without throwing, for hostile sizes, indexes and hash lengths', () => {
    const leaf = leafHash(leaves[0]!);
    const probes: [number, number][] = [
      [0, 0],
      [1, 0],
      [1, 1],
      [2, 1],
      [-1, 4],
      [0.5, 4],
      [0, 4.5],
      [Number.NaN, 4],
      [0, Number.POSITIVE_INFINITY],
      [0, 2 ** 53],
      [2 ** 53 - 1, 2 ** 53 - 1],
    ];
    for (const [index, size] of probes) {
      expect(verifyInclusion(index, size, leaf, [], leaf)).toBe(false);
      expect(verifyInclusion(index, size, leaf, [], EMPTY_TREE_ROOT)).toBe(false);
    }
    expect(verifyInclusion(0, 1, leaf, [], leaf)).toBe(true);
    expect(verifyInclusion(0, 1, new Uint8Array(0), [], new Uint8Array(0))).toBe(false);
    expect(verifyInclusion(0, 1, leaf, [], leaf.subarray(0, 31))).toBe(false);
    expect(
      verifyInclusion(
        0,
        2,
        leaf,
        Array.from({ length: 10_000 }, () => leaf),
        leaf,
      ),
    ).toBe(false);
  });

  it('handles tree sizes beyond 32 bits without bitwise overflow', () => {
    // A leaf at the far right of a 2^40 + 3 leaf tree: the proof shape is 2 hashes (the last
    // three leaves form a subtree of 3 beside a perfect subtree of 2^40). Compute the root
    // from the proof by the RFC's rules and check the verifier agrees.
    const size = 2 ** 40 + 3;
    const index = size - 1;
    const leaf = leafHash(new Uint8Array([1]));
    const sibling = SOME_HASH;
    const leftSubtree = EMPTY_TREE_ROOT;
    const root = nodeHash(leftSubtree, nodeHash(sibling, leaf));
    expect(verifyInclusion(index, size, leaf, [sibling, leftSubtree], root)).toBe(true);
    expect(verifyInclusion(index - 1, size, leaf, [sibling, leftSubtree], root)).toBe(false);
    expect(verifyInclusion(index, size + 1, leaf, [sibling, leftSubtree], root)).toBe(false);
  });

  it('refuses to build a proof for an index outside the tree', () => {
    expect(() => inclusionProof(3, leaves.slice(0, 3))).toThrow(MerkleError);
    expect(() => inclusionProof(-1, leaves.slice(0, 3))).toThrow(MerkleError);
    expect(() => inclusionProof(0, [])).toThrow(MerkleError);
  });
});

describe('consistency proofs (RFC 9162 §2.1.4)', () => {
  // transparency-dev/merkle proof/verify_test.go `consistencyProofs`.
  const known: [number, number, string[]][] = [
    [
      1,
      8,
      [
        '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
        '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
        '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
      ],
    ],
    [
      6,
      8,
      [
        '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
        'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
        'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      ],
    ],
    [
      2,
      5,
      [
        '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
        'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      ],
    ],
    [
      6,
      7,
      [
        '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
        'b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f',
        'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
      ],
    ],
  ];

  it.each(known)('builds the published proof from %i to %i', (oldSize, newSize, proofHex) => {
    const proof = consistencyProof(oldSize, leaves.slice(0, newSize));
    expect(proof.map(hex)).toEqual(proofHex);
    expect(verifyConsistency(oldSize, newSize, rootOf(oldSize), rootOf(newSize), proof)).toBe(true);
    expect(verifyConsistency(oldSize, newSize * 2, rootOf(oldSize), rootOf(newSize), proof)).toBe(false);
    expect(verifyConsistency(oldSize, Math.floor(newSize / 2), rootOf(oldSize), rootOf(newSize), proof)).toBe(false);
  });

  const pairs = SIZES.flatMap((newSize) => SIZES.filter((m) => m <= newSize).map((m) => [m, newSize] as const));

  it.each(pairs)('from %i to %i verifies, and fails once anything is tampered', (oldSize, newSize) => {
    const tree = leaves.slice(0, newSize);
    const proof = consistencyProof(oldSize, tree);
    const oldRoot = rootOf(oldSize);
    const newRoot = rootOf(newSize);
    expect(consistencyProofFromHashes(oldSize, tree.map(leafHash)).map(hex)).toEqual(proof.map(hex));

    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, proof)).toBe(true);
    expect(() => assertConsistency(oldSize, newSize, oldRoot, newRoot, proof)).not.toThrow();

    if (oldSize === newSize) {
      expect(proof).toHaveLength(0);
      expect(verifyConsistency(oldSize, newSize, oldRoot, flipped(newRoot), proof)).toBe(false);
      expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [oldRoot])).toBe(false);
      return;
    }
    for (let element = 0; element < proof.length; element++) {
      for (const byte of [0, 17, 31]) {
        expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, flip(proof, element, byte, 0x10))).toBe(false);
      }
    }
    expect(verifyConsistency(oldSize, newSize, flipped(oldRoot), newRoot, proof)).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, flipped(newRoot), proof)).toBe(false);
    expect(verifyConsistency(oldSize, newSize, newRoot, oldRoot, proof)).toBe(false);
    expect(verifyConsistency(oldSize - 1, newSize, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(oldSize + 1, newSize, oldRoot, newRoot, proof)).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [])).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, proof.slice(0, -1))).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [...proof, oldRoot])).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [...proof, newRoot])).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [oldRoot, ...proof])).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [newRoot, ...proof])).toBe(false);
    expect(verifyConsistency(oldSize, newSize, oldRoot, newRoot, [proof[0]!, ...proof])).toBe(false);
    // A proof never vouches for a tree that is not an extension: swap one leaf of the new tree.
    const forked = [...tree];
    forked[newSize - 1] = unhex('ff');
    expect(verifyConsistency(oldSize, newSize, oldRoot, merkleRoot(forked), proof)).toBe(false);
  });

  it('treats equal sizes, the empty tree and shrinking trees explicitly', () => {
    const root1 = rootOf(1);
    // A proof from the empty tree proves nothing (transparency-dev/merkle's rule).
    expect(verifyConsistency(0, 0, EMPTY_TREE_ROOT, EMPTY_TREE_ROOT, [])).toBe(false);
    expect(verifyConsistency(0, 5, EMPTY_TREE_ROOT, rootOf(5), [])).toBe(false);
    expect(verifyConsistency(0, 5, SOME_HASH, rootOf(5), [])).toBe(false);
    expect(verifyConsistency(0, 5, EMPTY_TREE_ROOT, rootOf(5), [EMPTY_TREE_ROOT])).toBe(false);
    expect(verifyConsistency(1, 1, root1, root1, [EMPTY_TREE_ROOT])).toBe(false);
    expect(verifyConsistency(1, 1, root1, SOME_HASH, [])).toBe(false);
    expect(verifyConsistency(2, 1, rootOf(2), root1, [])).toBe(false);
    expect(verifyConsistency(1, 0, root1, EMPTY_TREE_ROOT, [])).toBe(false);
    expect(consistencyProof(0, leaves)).toEqual([]);
    expect(() => consistencyProof(9, leaves)).toThrow(MerkleError);
    expect(() => consistencyProof(-1, leaves)).toThrow(MerkleError);
  });

  it('returns false, without throwing, for hostile sizes and hash lengths', () => {
    const proof = consistencyProof(3, leaves.slice(0, 7));
    const probes: [number, number][] = [
      [Number.NaN, 7],
      [3, Number.NaN],
      [-3, 7],
      [3, 7.5],
      [3, 2 ** 53],
      [2 ** 60, 2 ** 61],
    ];
    for (const [m, n] of probes) expect(verifyConsistency(m, n, rootOf(3), rootOf(7), proof)).toBe(false);
    expect(verifyConsistency(3, 7, rootOf(3).subarray(1), rootOf(7), proof)).toBe(false);
    expect(verifyConsistency(3, 7, rootOf(3), rootOf(7), [new Uint8Array(0), ...proof.slice(1)])).toBe(false);
    expect(
      verifyConsistency(
        3,
        7,
        rootOf(3),
        rootOf(7),
        Array.from({ length: 500 }, () => SOME_HASH),
      ),
    ).toBe(false);
    try {
      assertConsistency(3, 7, rootOf(3), rootOf(7), proof.slice(1));
      throw new Error('assertConsistency accepted a truncated proof');
    } catch (error) {
      expect(error).toBeInstanceOf(MerkleError);
      expect((error as MerkleError).reason).toBe('invalid_proof_length');
    }
  });
});
