/**
 * C2SP signed notes (https://c2sp.org/signed-note, as implemented by golang.org/x/mod/sumdb/note)
 * with Ed25519 signatures from node:crypto.
 *
 *     <text, ending in a newline>
 *     <blank line>
 *     — <key name> <base64(4-byte big-endian key id || signature)>
 *
 * The dash is an em dash (U+2014). The signed message is the text including its final newline
 * and excluding the blank line. Key id = SHA-256(name || 0x0A || type || public key)[:4].
 */
import { createPublicKey, type KeyObject, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { NoteError } from './errors';
import { fromBase64Strict, hasControlCharacter, isWellFormedUnicode, sha256, toBase64, utf8 } from './encoding';

/** Signature type byte of plain Ed25519 note signatures. */
export const SIGNATURE_TYPE_ED25519 = 0x01;
/** Signature type byte of timestamped Ed25519 witness cosignatures (c2sp.org/tlog-cosignature). */
export const SIGNATURE_TYPE_COSIGNATURE_V1 = 0x04;
/** Notes with more signature lines are rejected as malformed (the spec requires at least 16). */
export const MAX_NOTE_SIGNATURES = 100;

/** The em dash and space that start every signature line. */
export const SIGNATURE_LINE_PREFIX = '\u2014 ';

const ED25519_PUBLIC_KEY_SIZE = 32;
const ED25519_SIGNATURE_SIZE = 64;

/** A named Ed25519 signing key (a log key or a witness key). */
export interface NoteSigner {
  /** Key name: non-empty, no Unicode spaces, no `+`; a schema-less URL is recommended. */
  readonly name: string;
  /** Ed25519 private key. */
  readonly privateKey: KeyObject;
}

/** One signature line of a note. */
export interface NoteSignature {
  readonly name: string;
  /** Key id as an unsigned 32-bit integer (big-endian first 4 bytes of the decoded line). */
  readonly keyId: number;
  /** Bytes after the key id (for cosignatures: timestamp || signature). */
  readonly signature: Uint8Array;
}

/** A key able to check signatures of one (name, key id), e.g. from {@link parseVerifierKey}. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyId: number;
  /** Whether `signature` (the bytes after the key id) is valid for the note text `message`. */
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** A note split into text and signature lines, before any signature is checked. */
export interface ParsedNote {
  /** The note text, ending in a newline. */
  readonly body: string;
  readonly signatures: readonly NoteSignature[];
}

/** A note with at least one signature verified by a known key. */
export interface OpenedNote {
  readonly body: string;
  /** Signatures from known keys, all verified (one per key). */
  readonly verified: readonly NoteSignature[];
  /** Signatures from keys the caller did not supply, not checked. */
  readonly unverified: readonly NoteSignature[];
}

/** Whether `name` may be a key name: non-empty, well-formed, no Unicode space and no `+`. */
export function isValidKeyName(name: string): boolean {
  return typeof name === 'string' && name.length > 0 && isWellFormedUnicode(name) && !/[\s\u0085+]/u.test(name);
}

/**
 * Key id of a key: the first 4 bytes, big-endian, of SHA-256(name || 0x0A || type || publicKey).
 * @throws {NoteError} `invalid_name` for an invalid key name.
 */
export function noteKeyId(name: string, publicKey: Uint8Array, signatureType: number = SIGNATURE_TYPE_ED25519): number {
  assertKeyName(name);
  const digest = sha256(utf8(name), new Uint8Array([0x0a, signatureType & 0xff]), publicKey);
  return Buffer.from(digest.buffer, digest.byteOffset, 4).readUInt32BE(0);
}

/** A key id as the 8 lower-case hex digits used in vkeys and messages. */
export function formatKeyId(keyId: number): string {
  return (keyId >>> 0).toString(16).padStart(8, '0');
}

/**
 * Verifier key string `<name>+<hex key id>+<base64(type || publicKey)>`, e.g.
 * `PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW`.
 * @throws {NoteError} `invalid_name`, or `invalid_key` if `publicKeyRaw` is not 32 bytes.
 */
export function verifierKeyString(name: string, publicKeyRaw: Uint8Array, signatureType: number = SIGNATURE_TYPE_ED25519): string {
  if (!(publicKeyRaw instanceof Uint8Array) || publicKeyRaw.length !== ED25519_PUBLIC_KEY_SIZE) {
    throw new NoteError('invalid_key', 'an Ed25519 public key is 32 bytes');
  }
  const typed = new Uint8Array([signatureType & 0xff, ...publicKeyRaw]);
  return `${name}+${formatKeyId(noteKeyId(name, publicKeyRaw, signatureType))}+${toBase64(typed)}`;
}

/**
 * Verifier for plain Ed25519 note signatures (type 0x01) by `name` with `publicKey`.
 * @throws {NoteError} `invalid_name` or `invalid_key`.
 */
export function ed25519NoteVerifier(name: string, publicKey: Uint8Array | KeyObject): NoteVerifier {
  const raw = publicKey instanceof Uint8Array ? publicKey : ed25519PublicKeyRaw(publicKey);
  const key = ed25519PublicKeyObject(raw);
  const keyId = noteKeyId(name, raw, SIGNATURE_TYPE_ED25519);
  return { name, keyId, verify: (message, signature) => ed25519Verify(key, message, signature) };
}

/**
 * The 32-byte raw public key of an Ed25519 public or private `KeyObject`.
 * @throws {NoteError} `invalid_key` if the key is not Ed25519.
 */
export function ed25519PublicKeyRaw(key: KeyObject): Uint8Array {
  if (key.asymmetricKeyType !== 'ed25519') throw new NoteError('invalid_key', 'not an Ed25519 key');
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const { x } = publicKey.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new NoteError('invalid_key', 'Ed25519 key without a public part');
  return new Uint8Array(Buffer.from(x, 'base64url'));
}

/**
 * Splits a signed note into its text and signature lines (no signature is checked).
 * @throws {NoteError} `malformed_note` for anything that is not a signed note, including more
 *   than {@link MAX_NOTE_SIGNATURES} signature lines.
 */
export function parseNote(noteText: string): ParsedNote {
  if (typeof noteText !== 'string' || !isWellFormedUnicode(noteText) || hasControlCharacter(noteText, true)) {
    throw malformed('a note is well-formed Unicode without control characters other than newline');
  }
  const split = noteText.lastIndexOf('\n\n');
  if (split < 0) throw malformed('no blank line before the signatures');
  const body = noteText.slice(0, split + 1);
  const block = noteText.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) throw malformed('signature lines must end with a newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw malformed('too many signatures');
  return { body, signatures: lines.map(parseSignatureLine) };
}

/**
 * Signs note text `body` (which must end in a newline) with one or more Ed25519 keys and returns
 * the signed note.
 * @throws {NoteError} `malformed_body`, `invalid_name` or `invalid_key`.
 */
export function signNote(body: string, signer: NoteSigner | readonly NoteSigner[]): string {
  assertNoteBody(body);
  const signers: readonly NoteSigner[] = Array.isArray(signer) ? signer : [signer as NoteSigner];
  if (signers.length === 0) throw new NoteError('invalid_key', 'at least one signer is needed');
  const message = utf8(body);
  const lines = signers.map((s) => {
    const keyId = noteKeyId(s.name, ed25519PublicKeyRaw(s.privateKey), SIGNATURE_TYPE_ED25519);
    return formatSignatureLine({ name: s.name, keyId, signature: ed25519Sign(s.privateKey, message) });
  });
  return `${body}\n${lines.join('')}`;
}

/**
 * Parses a signed note and checks its signatures against `verifiers`, following the spec and
 * golang.org/x/mod/sumdb/note `Open`: signatures whose (name, key id) matches no verifier are
 * listed as unverified; a repeated signature by the same key is ignored; identical unknown lines
 * are listed once.
 * @returns the body with the verified and unverified signatures.
 * @throws {NoteError} `malformed_note`; `ambiguous_key` if two verifiers share a name and key id
 *   used by a signature; `invalid_signature` if a signature by a known key fails (the whole note
 *   is rejected); `unverified_note` if no known key signed it (`unverified` lists the others).
 */
export function openNote(noteText: string, verifiers: readonly NoteVerifier[]): OpenedNote {
  const { body, signatures } = parseNote(noteText);
  const message = utf8(body);
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seenKeys = new Set<string>();
  const seenUnknown = new Set<string>();
  for (const sig of signatures) {
    const candidates = verifiers.filter((v) => v.name === sig.name && v.keyId >>> 0 === sig.keyId);
    const keyLabel = `${sig.name}+${formatKeyId(sig.keyId)}`;
    if (candidates.length === 0) {
      const line = formatSignatureLine(sig);
      if (!seenUnknown.has(line)) {
        seenUnknown.add(line);
        unverified.push(sig);
      }
      continue;
    }
    const [verifier, ...others] = candidates;
    if (verifier === undefined || others.length > 0) throw new NoteError('ambiguous_key', `ambiguous key ${keyLabel}`);
    if (seenKeys.has(keyLabel)) continue;
    seenKeys.add(keyLabel);
    let ok = false;
    try {
      ok = verifier.verify(message, sig.signature);
    } catch {
      ok = false;
    }
    if (!ok) throw new NoteError('invalid_signature', `invalid signature for key ${keyLabel}`);
    verified.push(sig);
  }
  if (verified.length === 0) {
    throw new NoteError('unverified_note', 'note has no verifiable signatures', unverified);
  }
  return { body, verified, unverified };
}

/** Formats one signature line, `— <name> <base64(key id || signature)>\n`. */
export function formatSignatureLine(signature: NoteSignature): string {
  assertKeyName(signature.name);
  const payload = Buffer.alloc(4 + signature.signature.length);
  payload.writeUInt32BE(signature.keyId >>> 0, 0);
  payload.set(signature.signature, 4);
  return `${SIGNATURE_LINE_PREFIX}${signature.name} ${payload.toString('base64')}\n`;
}

/** @throws {NoteError} `malformed_body` unless `body` is non-empty note text ending in a newline. @internal */
export function assertNoteBody(body: string): void {
  if (
    typeof body !== 'string' ||
    body.length === 0 ||
    !body.endsWith('\n') ||
    !isWellFormedUnicode(body) ||
    hasControlCharacter(body, true)
  ) {
    throw new NoteError('malformed_body', 'note text must end in a newline and have no control characters');
  }
}

/** Ed25519 signature of `message` with node:crypto. @internal */
export function ed25519Sign(privateKey: KeyObject, message: Uint8Array): Uint8Array {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new NoteError('invalid_key', 'signing needs an Ed25519 private key');
  }
  return new Uint8Array(cryptoSign(null, message, privateKey));
}

/** Ed25519 verification that never throws. @internal */
export function ed25519Verify(publicKey: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  if (!(signature instanceof Uint8Array) || signature.length !== ED25519_SIGNATURE_SIZE) return false;
  try {
    return cryptoVerify(null, message, publicKey, signature);
  } catch {
    return false;
  }
}

/** A `KeyObject` for a raw 32-byte Ed25519 public key. @internal */
export function ed25519PublicKeyObject(raw: Uint8Array): KeyObject {
  if (!(raw instanceof Uint8Array) || raw.length !== ED25519_PUBLIC_KEY_SIZE) {
    throw new NoteError('invalid_key', 'an Ed25519 public key is 32 bytes');
  }
  try {
    const x = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64url');
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
  } catch {
    throw new NoteError('invalid_key', 'not a valid Ed25519 public key');
  }
}

function parseSignatureLine(line: string): NoteSignature {
  if (!line.startsWith(SIGNATURE_LINE_PREFIX)) throw malformed('a signature line starts with an em dash and a space');
  const rest = line.slice(SIGNATURE_LINE_PREFIX.length);
  const space = rest.indexOf(' ');
  if (space < 0) throw malformed('a signature line is "— <name> <base64>"');
  const name = rest.slice(0, space);
  const bytes = fromBase64Strict(rest.slice(space + 1));
  if (!isValidKeyName(name) || bytes === undefined || bytes.length < 5) throw malformed('bad signature line');
  const keyId = Buffer.from(bytes.buffer, bytes.byteOffset, 4).readUInt32BE(0);
  return { name, keyId, signature: bytes.slice(4) };
}

function assertKeyName(name: string): void {
  if (!isValidKeyName(name)) throw new NoteError('invalid_name', 'a key name is non-empty, without spaces or "+"');
}

function malformed(message: string): NoteError {
  return new NoteError('malformed_note', `malformed note: ${message}`);
}
