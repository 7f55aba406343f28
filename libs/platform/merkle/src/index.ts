/**
 * @svc/merkle: pure (no I/O) transparency-log primitives for the audit trail.
 *
 * - RFC 6962 / RFC 9162 Merkle trees: hashing, roots, inclusion and consistency proofs.
 * - The audit hash chain: {@link chainHash} and tamper localisation.
 * - C2SP signed notes, checkpoints and witness cosignatures with node:crypto Ed25519.
 */
export { HashChainError, MerkleError, NoteError, type MerkleFailureReason, type NoteFailureReason } from './errors';
export {
  EMPTY_TREE_ROOT,
  HASH_SIZE,
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
} from './merkle';
export {
  GENESIS_PREVIOUS_HASH,
  chainHash,
  findFirstBrokenIndex,
  findFirstChainBreak,
  type ChainBreak,
  type ChainBreakReason,
  type ChainEntry,
} from './hash-chain';
export {
  MAX_NOTE_SIGNATURES,
  SIGNATURE_LINE_PREFIX,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  SIGNATURE_TYPE_ED25519,
  ed25519NoteVerifier,
  ed25519PublicKeyRaw,
  formatKeyId,
  formatSignatureLine,
  isValidKeyName,
  noteKeyId,
  openNote,
  parseNote,
  signNote,
  verifierKeyString,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
  type OpenedNote,
  type ParsedNote,
} from './note';
export { parseVerifierKey } from './verifier-key';
export {
  formatCheckpoint,
  openCheckpoint,
  parseCheckpoint,
  type Checkpoint,
  type OpenedCheckpoint,
  type ParsedCheckpoint,
} from './checkpoint';
export {
  cosignNote,
  cosignatureMessage,
  cosignatureTimestamp,
  cosignatureVerifier,
  verifyCosignature,
  type CosignatureFailureReason,
  type CosignatureVerification,
  type Cosigner,
} from './cosignature';
