/**
 * C2SP transparency-log checkpoints (https://c2sp.org/tlog-checkpoint): the note text
 *
 *     <origin>
 *     <tree size, decimal, no leading zeroes>
 *     <base64 RFC 6962 root hash>
 *     [extension lines]
 */
import { NoteError } from './errors';
import { fromBase64Strict, hasControlCharacter, isWellFormedUnicode, toBase64 } from './encoding';
import { HASH_SIZE } from './merkle';
import { openNote, type NoteVerifier, type OpenedNote } from './note';

/** A log's tree head as carried by a checkpoint. */
export interface Checkpoint {
  /** Unique log identity, e.g. `example.com/log42`; non-empty, one line. */
  readonly origin: string;
  /** Number of leaves; a non-negative safe integer. */
  readonly size: number;
  /** RFC 6962 root hash of the tree of `size` leaves (32 bytes). */
  readonly rootHash: Uint8Array;
  /** Optional, opaque, non-empty extension lines (not recommended by the spec). */
  readonly extensions?: readonly string[];
}

/** A checkpoint read back from text; `extensions` is always present (possibly empty). */
export interface ParsedCheckpoint extends Checkpoint {
  readonly extensions: readonly string[];
}

/** A checkpoint whose note carried at least one verified signature. */
export interface OpenedCheckpoint extends OpenedNote {
  readonly checkpoint: ParsedCheckpoint;
}

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

/**
 * The checkpoint note text: `<origin>\n<size>\n<base64 root>\n` plus one line per extension.
 * @throws {NoteError} `malformed_checkpoint` for an empty or multi-line origin, a size that is not a
 *   non-negative safe integer, a root that is not 32 bytes, or an empty or multi-line extension.
 */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  const { origin, size, rootHash, extensions = [] } = checkpoint;
  if (!isLine(origin)) throw bad('the origin must be one non-empty line');
  if (!Number.isSafeInteger(size) || size < 0) throw bad('the size must be a non-negative safe integer');
  if (!(rootHash instanceof Uint8Array) || rootHash.length !== HASH_SIZE) throw bad('the root hash must be 32 bytes');
  if (!extensions.every(isLine)) throw bad('extension lines must be non-empty single lines');
  return [origin, String(size), toBase64(rootHash), ...extensions].map((line) => `${line}\n`).join('');
}

/**
 * Parses checkpoint note text (the body only: use {@link openCheckpoint} or `openNote` first for a
 * signed note). Strict: canonical decimal size, canonical base64 of exactly 32 bytes.
 * @throws {NoteError} `malformed_checkpoint`.
 */
export function parseCheckpoint(body: string): ParsedCheckpoint {
  if (typeof body !== 'string' || !body.endsWith('\n')) throw bad('checkpoint text ends with a newline');
  const [origin, sizeText, rootText, ...extensions] = body.slice(0, -1).split('\n');
  if (origin === undefined || sizeText === undefined || rootText === undefined) throw bad('a checkpoint has three lines');
  if (!isLine(origin)) throw bad('the origin must be one non-empty line');
  if (!DECIMAL.test(sizeText) || !Number.isSafeInteger(Number(sizeText))) throw bad('bad tree size');
  const rootHash = fromBase64Strict(rootText);
  if (rootHash === undefined || rootHash.length !== HASH_SIZE) throw bad('the root hash must be base64 of 32 bytes');
  if (!extensions.every(isLine)) throw bad('extension lines must be non-empty');
  return { origin, size: Number(sizeText), rootHash, extensions };
}

/**
 * Opens a signed checkpoint: {@link openNote} then {@link parseCheckpoint} on its text. Checking
 * that the verified signer is the log for `checkpoint.origin` is up to the caller's verifier list.
 * @throws {NoteError} as `openNote` does, or `malformed_checkpoint`.
 */
export function openCheckpoint(noteText: string, verifiers: readonly NoteVerifier[]): OpenedCheckpoint {
  const opened = openNote(noteText, verifiers);
  return { ...opened, checkpoint: parseCheckpoint(opened.body) };
}

function isLine(text: unknown): text is string {
  return typeof text === 'string' && text.length > 0 && isWellFormedUnicode(text) && !hasControlCharacter(text, false);
}

function bad(message: string): NoteError {
  return new NoteError('malformed_checkpoint', `malformed checkpoint: ${message}`);
}
