/**
 * Timestamped Ed25519 witness cosignatures, cosignature/v1 (https://c2sp.org/tlog-cosignature).
 *
 * Key id = SHA-256(name || 0x0A || 0x04 || public key)[:4]. The signed message is
 *
 *     cosignature/v1
 *     time <POSIX seconds>
 *     <checkpoint note text>
 *
 * and the signature line carries base64(key id (4) || timestamp (8, big-endian) || Ed25519 sig (64)).
 * The message does not commit to the cosigner name: never use one key for two cosigner names.
 */
import { type KeyObject } from 'node:crypto';
import { NoteError } from './errors';
import { utf8 } from './encoding';
import { parseCheckpoint } from './checkpoint';
import {
  SIGNATURE_TYPE_COSIGNATURE_V1,
  ed25519PublicKeyObject,
  ed25519PublicKeyRaw,
  ed25519Sign,
  ed25519Verify,
  formatSignatureLine,
  noteKeyId,
  parseNote,
  type NoteSignature,
  type NoteSigner,
  type NoteVerifier,
} from './note';

const TIMESTAMP_SIZE = 8;
const COSIGNATURE_SIZE = TIMESTAMP_SIZE + 64;

/** Why {@link verifyCosignature} did not accept a cosignature. */
export type CosignatureFailureReason = 'malformed_note' | 'not_a_checkpoint' | 'absent' | 'invalid_signature';

/** Result of {@link verifyCosignature}: the cosignature's timestamp, or why there is none. */
export type CosignatureVerification =
  { readonly valid: true; readonly timestamp: number } | { readonly valid: false; readonly reason: CosignatureFailureReason };

/** A witness (cosigner) public identity. */
export interface Cosigner {
  readonly name: string;
  /** Raw 32-byte Ed25519 public key, or a `KeyObject`. */
  readonly publicKey: Uint8Array | KeyObject;
}

/**
 * The exact bytes a cosigner signs for `checkpointBody` at `timestamp` (POSIX seconds).
 * @throws {NoteError} `malformed_checkpoint`, or `invalid_timestamp` unless 0 ≤ timestamp < 2^53.
 */
export function cosignatureMessage(checkpointBody: string, timestamp: number): Uint8Array {
  parseCheckpoint(checkpointBody);
  assertTimestamp(timestamp);
  return utf8(`cosignature/v1\ntime ${timestamp}\n${checkpointBody}`);
}

/**
 * A {@link NoteVerifier} for cosignature/v1 signatures (type 0x04) by `name`, usable with
 * `openNote` next to the log's own verifier. Rejects (returns false) any note text that is not
 * a checkpoint and any timestamp ≥ 2^53.
 * @throws {NoteError} `invalid_name` or `invalid_key`.
 */
export function cosignatureVerifier(name: string, publicKey: Uint8Array | KeyObject): NoteVerifier {
  const raw = publicKey instanceof Uint8Array ? publicKey : ed25519PublicKeyRaw(publicKey);
  const key = ed25519PublicKeyObject(raw);
  const keyId = noteKeyId(name, raw, SIGNATURE_TYPE_COSIGNATURE_V1);
  return {
    name,
    keyId,
    verify(message, signature) {
      const timestamp = readTimestamp(signature);
      if (timestamp === undefined) return false;
      let signed: Uint8Array;
      try {
        signed = cosignatureMessage(Buffer.from(message).toString('utf8'), timestamp);
      } catch {
        return false;
      }
      return ed25519Verify(key, signed, signature.subarray(TIMESTAMP_SIZE));
    },
  };
}

/**
 * Adds the cosignature of `cosigner` at `timestamp` (POSIX seconds) to a checkpoint, given either
 * as a signed note (signature lines are kept, except an older one by the same key, which is
 * replaced) or as bare checkpoint text. Does not check the log's signature or consistency: a
 * witness must do that (`openCheckpoint`, `verifyConsistency`) before cosigning.
 * @throws {NoteError} `malformed_note`, `malformed_checkpoint`, `invalid_timestamp`,
 *   `invalid_name`, `invalid_key`.
 */
export function cosignNote(noteText: string, cosigner: NoteSigner, timestamp: number): string {
  const { body, signatures } = noteText.includes('\n\n')
    ? parseNote(noteText)
    : { body: noteText, signatures: [] as readonly NoteSignature[] };
  const message = cosignatureMessage(body, timestamp);
  const keyId = noteKeyId(cosigner.name, ed25519PublicKeyRaw(cosigner.privateKey), SIGNATURE_TYPE_COSIGNATURE_V1);
  const payload = Buffer.alloc(COSIGNATURE_SIZE);
  payload.writeBigUInt64BE(BigInt(timestamp), 0);
  payload.set(ed25519Sign(cosigner.privateKey, message), TIMESTAMP_SIZE);
  const kept = signatures.filter((s) => !(s.name === cosigner.name && s.keyId === keyId));
  const lines = [...kept, { name: cosigner.name, keyId, signature: new Uint8Array(payload) }].map(formatSignatureLine);
  return `${body}\n${lines.join('')}`;
}

/**
 * The timestamp (POSIX seconds) inside a cosignature/v1 signature line, without verifying it;
 * `undefined` if the line is not 72 bytes after the key id or the time is not below 2^53.
 */
export function cosignatureTimestamp(signature: NoteSignature): number | undefined {
  return readTimestamp(signature.signature);
}

/**
 * Checks that the checkpoint note carries a valid cosignature/v1 from `cosigner`, and returns its
 * timestamp. Never throws for untrusted note text (only for an invalid `cosigner`). Does not
 * check the log's own signature: use `openCheckpoint` for that. If several lines match the
 * cosigner's name and key id, all must verify; the latest timestamp is returned.
 * @throws {NoteError} `invalid_name` or `invalid_key` for a bad `cosigner`.
 */
export function verifyCosignature(noteText: string, cosigner: Cosigner): CosignatureVerification {
  const verifier = cosignatureVerifier(cosigner.name, cosigner.publicKey);
  let body: string;
  let signatures: readonly NoteSignature[];
  try {
    ({ body, signatures } = parseNote(noteText));
  } catch {
    return { valid: false, reason: 'malformed_note' };
  }
  try {
    parseCheckpoint(body);
  } catch {
    return { valid: false, reason: 'not_a_checkpoint' };
  }
  const matching = signatures.filter((s) => s.name === verifier.name && s.keyId === verifier.keyId);
  if (matching.length === 0) return { valid: false, reason: 'absent' };
  const message = utf8(body);
  let latest = -1;
  for (const sig of matching) {
    const timestamp = readTimestamp(sig.signature);
    if (timestamp === undefined || !verifier.verify(message, sig.signature)) {
      return { valid: false, reason: 'invalid_signature' };
    }
    latest = Math.max(latest, timestamp);
  }
  return { valid: true, timestamp: latest };
}

function readTimestamp(signature: Uint8Array): number | undefined {
  if (!(signature instanceof Uint8Array) || signature.length !== COSIGNATURE_SIZE) return undefined;
  const value = Buffer.from(signature.buffer, signature.byteOffset, TIMESTAMP_SIZE).readBigUInt64BE(0);
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new NoteError('invalid_timestamp', 'a cosignature timestamp is an integer number of seconds in [0, 2^53)');
  }
}
