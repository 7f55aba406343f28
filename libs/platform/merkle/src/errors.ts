/**
 * Why a Merkle proof, tree size or leaf hash was rejected.
 *
 * - `invalid_tree_size`: a size is not a non-negative safe integer, or the old size exceeds the new.
 * - `index_out_of_range`: the leaf index is not a non-negative safe integer below the tree size.
 * - `invalid_hash_length`: a leaf hash, root or proof element is not 32 bytes.
 * - `invalid_proof_length`: the proof has more or fewer hashes than the sizes require.
 * - `root_mismatch`: the proof is well-formed but does not lead to the expected root(s).
 */
export type MerkleFailureReason =
  'invalid_tree_size' | 'index_out_of_range' | 'invalid_hash_length' | 'invalid_proof_length' | 'root_mismatch';

/** A Merkle proof failed to verify, or a proof could not be built from the given arguments. */
export class MerkleError extends Error {
  constructor(
    readonly reason: MerkleFailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'MerkleError';
  }
}

/**
 * Why a signed note, verifier key or checkpoint was rejected.
 *
 * - `malformed_note`: not a signed note per c2sp.org/signed-note (syntax, control characters,
 *   missing blank line, bad signature line, too many signatures).
 * - `malformed_body`: note text to sign is empty, lacks its final newline, or has control characters.
 * - `malformed_checkpoint`: note text is not a c2sp.org/tlog-checkpoint body.
 * - `invalid_name`: a key name is empty, contains a space or `+`, or is not valid Unicode.
 * - `invalid_key`: a key is not an Ed25519 key of the right kind, or a vkey string is malformed.
 * - `unsupported_key_type`: a vkey names a signature type this library does not implement.
 * - `key_id_mismatch`: a vkey's key id does not match its name and public key.
 * - `ambiguous_key`: several verifiers share the name and key id of a signature.
 * - `invalid_signature`: a signature from a known key does not verify (the whole note is rejected).
 * - `unverified_note`: no signature from a known key; `unverified` lists the signatures found.
 * - `invalid_timestamp`: a cosignature timestamp is not an integer in [0, 2^53).
 */
export type NoteFailureReason =
  | 'malformed_note'
  | 'malformed_body'
  | 'malformed_checkpoint'
  | 'invalid_name'
  | 'invalid_key'
  | 'unsupported_key_type'
  | 'key_id_mismatch'
  | 'ambiguous_key'
  | 'invalid_signature'
  | 'unverified_note'
  | 'invalid_timestamp';

/** A signed note, checkpoint or key could not be parsed, produced or verified. */
export class NoteError extends Error {
  constructor(
    readonly reason: NoteFailureReason,
    message: string,
    /** For `unverified_note`: the well-formed signatures from unknown keys. */
    readonly unverified?: readonly { readonly name: string; readonly keyId: number }[],
  ) {
    super(message);
    this.name = 'NoteError';
  }
}

/** An argument to a hash-chain function is malformed (not a stored entry, which is reported, not thrown). */
export class HashChainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HashChainError';
  }
}
