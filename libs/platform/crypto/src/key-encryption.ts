import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { cryptoError } from './crypto.errors';

/** Format version byte of {@link KeyEncryption} envelopes: AES-256-GCM, 96-bit IV, 128-bit tag. */
export const KEY_ENVELOPE_VERSION = 1;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES;

/**
 * Envelope encryption of secrets at rest (signing private keys, webhook secrets) under the
 * configured key-encryption key (KEK).
 *
 * Envelope layout: `version (1 byte, = 1) | IV (12 bytes, random) | ciphertext | GCM tag (16 bytes)`.
 * The GCM additional authenticated data is the version byte followed by the UTF-8 `aad`, so an
 * envelope cannot be replayed under another version's rules, and — with `aad` = the row's `kid` —
 * an attacker with database write access cannot move a ciphertext onto another key row.
 * Random 96-bit IVs are safe far beyond the number of secrets one KEK will ever protect (NIST
 * SP 800-38D §8.3 bounds it at 2^32 encryptions).
 */
export class KeyEncryption {
  private readonly kek: Buffer;

  /**
   * @param kekBase64 the KEK as standard base64 (with `=` padding) of exactly 32 random bytes,
   *   i.e. the `KEY_ENCRYPTION_KEY` setting. Throws `key_encryption_key_invalid` otherwise, so a
   *   truncated or mistyped key fails at boot instead of silently weakening encryption.
   */
  constructor(kekBase64: string) {
    if (!/^[A-Za-z0-9+/]{43}=$/.test(kekBase64)) {
      throw cryptoError('key_encryption_key_invalid', 'Key-encryption key must be base64 of exactly 32 bytes');
    }
    const kek = Buffer.from(kekBase64, 'base64');
    // The pattern admits 43 characters whose last one carries non-zero padding bits; re-encoding catches it.
    if (kek.length !== 32 || kek.toString('base64') !== kekBase64) {
      throw cryptoError('key_encryption_key_invalid', 'Key-encryption key must be base64 of exactly 32 bytes');
    }
    this.kek = kek;
  }

  /** Encrypts `plaintext` bound to `aad` (the owning row's id); returns a fresh envelope. */
  encrypt(plaintext: Buffer, aad: string): Buffer {
    const version = Buffer.of(KEY_ENVELOPE_VERSION);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.kek, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.concat([version, Buffer.from(aad, 'utf8')]));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([version, iv, ciphertext, cipher.getAuthTag()]);
  }

  /**
   * Decrypts an envelope made by {@link encrypt} with the same KEK and `aad`. Throws
   * `key_decryption_failed` when the version is unknown, the envelope is truncated, or it does not
   * authenticate (wrong KEK, wrong `aad`, any flipped bit); no partial plaintext is ever returned.
   */
  decrypt(envelope: Uint8Array, aad: string): Buffer {
    const blob = Buffer.from(envelope.buffer, envelope.byteOffset, envelope.byteLength);
    if (blob.length < HEADER_BYTES + TAG_BYTES) {
      throw cryptoError('key_decryption_failed', 'Encrypted key envelope is truncated');
    }
    const version = blob[0];
    if (version !== KEY_ENVELOPE_VERSION) {
      throw cryptoError('key_decryption_failed', 'Encrypted key envelope has an unknown format version', { version });
    }
    const iv = blob.subarray(1, HEADER_BYTES);
    const ciphertext = blob.subarray(HEADER_BYTES, blob.length - TAG_BYTES);
    const tag = blob.subarray(blob.length - TAG_BYTES);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.kek, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.concat([Buffer.of(version), Buffer.from(aad, 'utf8')]));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
    } catch {
      throw cryptoError('key_decryption_failed', 'Encrypted key envelope did not authenticate');
    }
  }
}
