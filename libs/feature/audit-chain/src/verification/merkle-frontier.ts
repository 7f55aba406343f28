import { EMPTY_TREE_ROOT, HASH_SIZE, leafHash, nodeHash } from '@svc/merkle';

/** The RFC 9162 Merkle leaf of a chain entry: the leaf data is the entry hash's 32 bytes. */
export function entryLeafHash(entryHashHex: string): Uint8Array {
  return leafHash(Buffer.from(entryHashHex, 'hex'));
}

/**
 * Running RFC 9162 tree head over leaves appended one by one, in O(log n) memory: the roots of
 * the perfect subtrees the tree decomposes into (left to right, strictly decreasing sizes). The
 * root of the n-leaf tree folds them right to left, exactly as MTH splits at the largest power
 * of two below n. Lets a verifier check every checkpoint while streaming a chain of any length.
 */
export class MerkleFrontier {
  private readonly stack: Array<{ size: number; hash: Uint8Array }> = [];
  private count = 0;

  /** Number of leaves pushed. */
  get size(): number {
    return this.count;
  }

  /** Adds the next leaf, given as its leaf hash (see {@link entryLeafHash}). */
  push(leaf: Uint8Array): void {
    if (leaf.length !== HASH_SIZE) throw new Error('a leaf hash is 32 bytes');
    let node = { size: 1, hash: leaf };
    let top = this.stack[this.stack.length - 1];
    while (top && top.size === node.size) {
      this.stack.pop();
      node = { size: top.size * 2, hash: nodeHash(top.hash, node.hash) };
      top = this.stack[this.stack.length - 1];
    }
    this.stack.push(node);
    this.count += 1;
  }

  /** An independent copy (to resume verification from a checkpoint already checked). */
  clone(): MerkleFrontier {
    const copy = new MerkleFrontier();
    copy.stack.push(...this.stack.map((node) => ({ ...node })));
    copy.count = this.count;
    return copy;
  }

  /** Root of the tree of all leaves pushed so far (the empty-tree hash for none). */
  root(): Uint8Array {
    let hash: Uint8Array | undefined;
    for (let i = this.stack.length - 1; i >= 0; i -= 1) {
      const node = this.stack[i];
      if (!node) continue;
      hash = hash === undefined ? node.hash : nodeHash(node.hash, hash);
    }
    return hash ?? EMPTY_TREE_ROOT;
  }
}
