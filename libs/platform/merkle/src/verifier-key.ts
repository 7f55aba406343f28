/**
 * Verifier keys (vkeys), `<name>+<hex key id>+<base64(type || public key)>`, as in
 * https://c2sp.org/signed-note and golang.org/x/mod/sumdb/note `NewVerifier`.
 */
import { NoteError } from './errors';
import { fromBase64Strict } from './encoding';
import { cosignatureVerifier } from './cosignature';
import {
  SIGNATURE_TYPE_COSIGNATURE_V1,
  SIGNATURE_TYPE_ED25519,
  ed25519NoteVerifier,
  isValidKeyName,
  noteKeyId,
  type NoteVerifier,
} from './note';

/**
 * Parses a verifier key string. Type 0x01 gives a plain Ed25519 note verifier, type 0x04 a
 * cosignature/v1 verifier (checkpoint bodies only).
 * @throws {NoteError} `invalid_key` (syntax, key size), `invalid_name`, `unsupported_key_type`,
 *   `key_id_mismatch`.
 */
export function parseVerifierKey(vkey: string): NoteVerifier {
  const match = /^([^+]*)\+([0-9a-fA-F]{8})\+(.*)$/su.exec(typeof vkey === 'string' ? vkey : '');
  const [, name, hex, key64] = match ?? [];
  if (name === undefined || hex === undefined || key64 === undefined) {
    throw new NoteError('invalid_key', 'a verifier key is <name>+<8 hex digits>+<base64 key>');
  }
  if (!isValidKeyName(name)) throw new NoteError('invalid_name', 'a key name is non-empty, without spaces or "+"');
  const typed = fromBase64Strict(key64);
  const type = typed?.[0];
  if (typed === undefined || type === undefined) throw new NoteError('invalid_key', 'verifier key material is not base64');
  const publicKey = typed.subarray(1);
  if (type !== SIGNATURE_TYPE_ED25519 && type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new NoteError('unsupported_key_type', `signature type 0x${type.toString(16).padStart(2, '0')} is not supported`);
  }
  if (publicKey.length !== 32) throw new NoteError('invalid_key', 'an Ed25519 public key is 32 bytes');
  if (Number.parseInt(hex, 16) !== noteKeyId(name, publicKey, type)) {
    throw new NoteError('key_id_mismatch', `key id ${hex} does not match ${name} and its public key`);
  }
  return type === SIGNATURE_TYPE_ED25519 ? ed25519NoteVerifier(name, publicKey) : cosignatureVerifier(name, publicKey);
}
