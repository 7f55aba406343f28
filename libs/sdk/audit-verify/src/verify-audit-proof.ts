import {
  MerkleError,
  NoteError,
  assertConsistency,
  assertInclusion,
  chainHash,
  leafHash,
  openCheckpoint,
  parseVerifierKey,
  type ParsedCheckpoint,
} from '@svc/merkle';

/** Why an audit proof was refused; stable strings a caller may branch on. */
export type AuditProofFailure =
  /** The verifier key is not a C2SP vkey (`<name>+<key id>+<base64 key>`). */
  | 'verifier_key_invalid'
  /** The checkpoint note is malformed or carries no valid signature by the verifier key. */
  | 'checkpoint_unverified'
  /** The response's sizes or root differ from what the signed checkpoint says. */
  | 'checkpoint_mismatch'
  /** The entry's hash is not SHA-256(previous_hash || canonical): its content was altered. */
  | 'entry_hash_mismatch'
  /** The Merkle proof does not lead to the signed root. */
  | 'proof_invalid'
  /** The response is not shaped like the API's proof object. */
  | 'response_malformed';

/** Thrown for every refused proof; `code` is stable, `message` is for humans. */
export class AuditProofError extends Error {
  constructor(
    readonly code: AuditProofFailure,
    message: string,
  ) {
    super(message);
    this.name = 'AuditProofError';
  }
}

/** A checkpoint as the API serves it (the fields a verifier reads). */
export interface AuditCheckpointResponse {
  sequence: number;
  tree_size: number;
  root_hash: string;
  signed_note: string;
}

/** `GET /api/v1/audit/entries/{id}/inclusion_proof`. */
export interface InclusionProofResponse {
  entry: { id: string; index: number; previous_hash: string; hash: string; canonical: string };
  leaf_index: number;
  tree_size: number;
  proof: string[];
  checkpoint: AuditCheckpointResponse;
}

/** `GET /api/v1/audit/consistency_proof?from=&to=`. */
export interface ConsistencyProofResponse {
  from: AuditCheckpointResponse;
  to: AuditCheckpointResponse;
  proof: string[];
}

/** Options of both verifiers. */
export interface VerifyAuditProofOptions {
  /**
   * The region's checkpoint verifier key (C2SP vkey), obtained and pinned out of band, e.g. from
   * `/.well-known/…` once or from a witness. The key inside a response is never trusted.
   */
  verifierKey: string;
}

/** What a verified inclusion proof establishes. */
export interface VerifiedInclusion {
  entryId: string;
  index: number;
  origin: string;
  treeSize: number;
  checkpointSequence: number;
}

/** What a verified consistency proof establishes: the older signed tree is a prefix of the newer. */
export interface VerifiedConsistency {
  origin: string;
  oldSize: number;
  newSize: number;
}

const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'base64'));

function signedCheckpoint(served: AuditCheckpointResponse, verifierKey: string): ParsedCheckpoint {
  let verifier;
  try {
    verifier = parseVerifierKey(verifierKey);
  } catch (error) {
    throw new AuditProofError('verifier_key_invalid', error instanceof Error ? error.message : String(error));
  }
  let checkpoint: ParsedCheckpoint;
  try {
    checkpoint = openCheckpoint(served.signed_note, [verifier]).checkpoint;
  } catch (error) {
    throw new AuditProofError('checkpoint_unverified', error instanceof NoteError ? `${error.reason}: ${error.message}` : String(error));
  }
  if (checkpoint.size !== served.tree_size || Buffer.from(checkpoint.rootHash).toString('base64') !== served.root_hash) {
    throw new AuditProofError('checkpoint_mismatch', `checkpoint ${served.sequence}: the served size or root differs from the signed note`);
  }
  return checkpoint;
}

function proofBytes(proof: unknown): Uint8Array[] {
  if (!Array.isArray(proof) || proof.some((hash) => typeof hash !== 'string'))
    throw new AuditProofError('response_malformed', 'proof is not a list of base64 hashes');
  return proof.map((hash: string) => fromBase64(hash));
}

/**
 * Verifies an audit entry's inclusion proof offline: the checkpoint note is signed by
 * `verifierKey`, the entry's hash is SHA-256(previous_hash || canonical) (so `canonical` is the
 * content that was logged), and the RFC 9162 audit path leads from the entry's leaf
 * (SHA-256(0x00 || entry hash)) to the signed root. Throws {@link AuditProofError}.
 */
export function verifyInclusionProof(response: InclusionProofResponse, options: VerifyAuditProofOptions): VerifiedInclusion {
  const { entry } = response ?? {};
  if (typeof entry?.hash !== 'string' || !/^[0-9a-f]{64}$/.test(entry.hash) || !response.checkpoint)
    throw new AuditProofError('response_malformed', 'not an audit_inclusion_proof');
  const checkpoint = signedCheckpoint(response.checkpoint, options.verifierKey);
  let recomputed: string;
  try {
    recomputed = chainHash(entry.previous_hash, entry.canonical);
  } catch (error) {
    throw new AuditProofError('response_malformed', error instanceof Error ? error.message : String(error));
  }
  if (recomputed !== entry.hash)
    throw new AuditProofError('entry_hash_mismatch', `entry ${entry.id}: hash does not match its canonical content`);
  try {
    assertInclusion(
      response.leaf_index,
      checkpoint.size,
      leafHash(Buffer.from(entry.hash, 'hex')),
      proofBytes(response.proof),
      checkpoint.rootHash,
    );
  } catch (error) {
    if (error instanceof MerkleError) throw new AuditProofError('proof_invalid', `${error.reason}: ${error.message}`);
    throw error;
  }
  if (response.leaf_index !== entry.index) throw new AuditProofError('response_malformed', 'leaf_index differs from the entry index');
  return {
    entryId: entry.id,
    index: entry.index,
    origin: checkpoint.origin,
    treeSize: checkpoint.size,
    checkpointSequence: response.checkpoint.sequence,
  };
}

/**
 * Verifies a consistency proof offline: both checkpoint notes are signed by `verifierKey`, name the
 * same log, and the RFC 9162 proof shows the older tree is a prefix of the newer one (nothing
 * logged was rewritten or removed). Throws {@link AuditProofError}.
 */
export function verifyConsistencyProof(response: ConsistencyProofResponse, options: VerifyAuditProofOptions): VerifiedConsistency {
  if (!response?.from || !response.to) throw new AuditProofError('response_malformed', 'not an audit_consistency_proof');
  const older = signedCheckpoint(response.from, options.verifierKey);
  const newer = signedCheckpoint(response.to, options.verifierKey);
  if (older.origin !== newer.origin) throw new AuditProofError('checkpoint_mismatch', 'the two checkpoints name different logs');
  try {
    assertConsistency(older.size, newer.size, older.rootHash, newer.rootHash, proofBytes(response.proof));
  } catch (error) {
    if (error instanceof MerkleError) throw new AuditProofError('proof_invalid', `${error.reason}: ${error.message}`);
    throw error;
  }
  return { origin: newer.origin, oldSize: older.size, newSize: newer.size };
}
