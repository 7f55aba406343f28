import { commonError } from '@svc/errors';
import { checkJsonShape, DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits';
import { refuseUnstorableStrings } from './unstorable-strings';

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** A \\u0000 or \\uD800–\\uDFFF escape (possibly a false alarm, e.g. an escaped backslash before it). */
const UNSTORABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;

/** Refuses a declared charset other than UTF-8 (RFC 8259: JSON exchanged between systems is UTF-8). */
export function refuseNonUtf8Charset(contentType: string | undefined): void {
  const charset = CHARSET.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw commonError('unsupported_media_type', `Charset ${charset} is not supported; send application/json in UTF-8`);
  }
}

/**
 * Turns a JSON request body's bytes into a value, or throws the envelope's 4xx: bytes that are not
 * UTF-8 and text that is not JSON answer 400 malformed_json (never a silent U+FFFD), nesting or
 * width beyond the limits 400 json_too_deep / json_too_many_members (checked before parsing, in
 * linear time), a `__proto__` or `constructor.prototype` key 400 malformed_json, and a string with
 * U+0000 or an unpaired surrogate 400 naming its field.
 */
export function parseJsonBody(bytes: Buffer, limits: JsonLimits = DEFAULT_JSON_LIMITS): unknown {
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw commonError('malformed_json', 'Request body is not valid UTF-8');
  }
  if (text.trim() === '') throw commonError('malformed_json', 'Request body is empty but declared as JSON');
  checkJsonShape(text, limits);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw commonError('malformed_json', 'Request body is not valid JSON');
  }
  // Walk the parsed value only when the text could hold what the walks look for: U+0000 and lone
  // surrogates can only arrive as \u escapes (raw ones are not JSON or not UTF-8).
  const escapes = text.includes('\\u');
  if (escapes || text.includes('__proto__') || text.includes('constructor')) refusePrototypeKeys(value);
  if (escapes && UNSTORABLE_ESCAPE.test(text)) refuseUnstorableStrings(value);
  return value;
}

/**
 * What {@link parseJsonBody} checks after parsing, for a value another parser built (a row of a
 * streamed body): a `__proto__` or `constructor.prototype` key 400 malformed_json, a string with
 * U+0000 or an unpaired surrogate 400 naming its field under `path`.
 */
export function refuseUnsafeJsonValue(value: unknown, path: string): void {
  refusePrototypeKeys(value);
  refuseUnstorableStrings(value, path);
}

function refusePrototypeKeys(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach(refusePrototypeKeys);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (key === '__proto__' || (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item, 'prototype'))) {
      throw commonError('malformed_json', `Request body has a forbidden ${key} key`);
    }
    refusePrototypeKeys(item);
  }
}
