import { createHash, timingSafeEqual } from 'node:crypto';

/** SHA-256 over the concatenation of `parts`, as a plain `Uint8Array`. @internal */
export function sha256(...parts: readonly Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

/** Whether two byte arrays are equal; constant time once the lengths match. @internal */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether `value` is a `Uint8Array` of exactly `length` bytes. @internal */
export function isBytes(value: unknown, length: number): value is Uint8Array {
  return value instanceof Uint8Array && value.length === length;
}

const STD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard (RFC 4648 §4) padded base64. @internal */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Strict standard base64: padding required, no whitespace, no URL-safe alphabet, and no
 * non-zero trailing bits (the text must be the canonical encoding of its bytes). Returns
 * `undefined` instead of guessing, unlike `Buffer.from(text, 'base64')`. @internal
 */
export function fromBase64Strict(text: string): Uint8Array | undefined {
  if (!STD_BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') !== text) return undefined;
  return new Uint8Array(bytes);
}

/** Lower-case hex. @internal */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Whether `text` encodes to UTF-8 without loss (no unpaired surrogates). Native
 * `String.prototype.isWellFormed` (ES2024, every supported Node): a lookaround regular expression
 * over every hashed entry cost a measurable share of appending to the audit chain. @internal
 */
export function isWellFormedUnicode(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** UTF-8 bytes of `text` (callers check {@link isWellFormedUnicode} first). @internal */
export function utf8(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Whether `text` has an ASCII control character (below U+0020), newline excepted if allowed. @internal */
export function hasControlCharacter(text: string, allowNewline: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && !(allowNewline && code === 0x0a)) return true;
  }
  return false;
}
