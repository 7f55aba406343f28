import { randomBytes } from 'node:crypto';
import { isDomainError } from '@svc/errors';
import { KeyEncryption } from './key-encryption';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isDomainError(error) ? error.code : `non-domain: ${String(error)}`;
  }
  return undefined;
}

const kekBase64 = randomBytes(32).toString('base64');

describe('KeyEncryption (AES-256-GCM envelope)', () => {
  const kek = new KeyEncryption(kekBase64);
  const secret = randomBytes(48);

  it('round-trips and lays out version | 12-byte IV | ciphertext | 16-byte tag', () => {
    const envelope = kek.encrypt(secret, 'oap-us-v1');
    expect(envelope[0]).toBe(1);
    expect(envelope.length).toBe(1 + 12 + secret.length + 16);
    expect(envelope.includes(secret)).toBe(false);
    expect(kek.decrypt(envelope, 'oap-us-v1').equals(secret)).toBe(true);
  });

  it('uses a fresh IV per encryption', () => {
    const a = kek.encrypt(secret, 'k');
    const b = kek.encrypt(secret, 'k');
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it.each([
    ['the version byte', 0],
    ['the IV', 5],
    ['the ciphertext', 20],
    ['the tag', -1],
  ])('refuses an envelope with one bit flipped in %s', (_part, position) => {
    const envelope = kek.encrypt(secret, 'oap-us-v1');
    const index = position < 0 ? envelope.length + position : position;
    envelope[index] = (envelope[index] ?? 0) ^ 0x01;
    expect(codeOf(() => kek.decrypt(envelope, 'oap-us-v1'))).toBe('key_decryption_failed');
  });

  it('refuses a ciphertext moved to another key row (wrong aad)', () => {
    const envelope = kek.encrypt(secret, 'oap-us-v1');
    expect(codeOf(() => kek.decrypt(envelope, 'oap-us-v2'))).toBe('key_decryption_failed');
  });

  it('refuses decryption under another KEK', () => {
    const envelope = kek.encrypt(secret, 'oap-us-v1');
    const other = new KeyEncryption(randomBytes(32).toString('base64'));
    expect(codeOf(() => other.decrypt(envelope, 'oap-us-v1'))).toBe('key_decryption_failed');
  });

  it('refuses a truncated envelope', () => {
    const envelope = kek.encrypt(Buffer.alloc(0), 'k');
    expect(kek.decrypt(envelope, 'k').length).toBe(0);
    expect(codeOf(() => kek.decrypt(envelope.subarray(0, envelope.length - 1), 'k'))).toBe('key_decryption_failed');
  });

  it.each([
    ['16 bytes', randomBytes(16).toString('base64')],
    ['31 bytes', randomBytes(31).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['64 bytes', randomBytes(64).toString('base64')],
    ['32 bytes as base64url', Buffer.alloc(32, 0xff).toString('base64url')],
    ['32 bytes without padding', kekBase64.replace(/=$/, '')],
    ['empty', ''],
  ])('rejects a KEK of %s', (_label, value) => {
    expect(codeOf(() => new KeyEncryption(value))).toBe('key_encryption_key_invalid');
  });

  it('rejects a 43-character KEK whose last character carries non-zero padding bits', () => {
    // 'B' has low bits 01: the pattern matches, but it is not the encoding of any 32 bytes.
    const value = `${kekBase64.slice(0, 42)}B=`;
    expect(Buffer.from(value, 'base64').toString('base64')).not.toBe(value);
    expect(codeOf(() => new KeyEncryption(value))).toBe('key_encryption_key_invalid');
  });
});
