import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { cryptoError } from './crypto.errors';

/**
 * Serialises `value` as RFC 8785 JSON Canonicalization Scheme text: object members sorted by
 * UTF-16 code units, no whitespace, numbers in ECMAScript shortest round-trip form (`1e+21`,
 * `-0` → `0`), strings with the minimal JSON escapes. Hash or sign the returned text's UTF-8 bytes.
 *
 * Stricter than `JSON.stringify` on purpose, because silently dropped or rewritten data would make
 * a signature cover something other than what the caller meant. Throws `canonical_json_unrepresentable`
 * (kind `invalid`) for: `undefined` at the top level or inside an array, NaN and ±Infinity,
 * bigint, functions and symbols anywhere, `Map`/`Set`, cycles, and strings or member names
 * holding lone UTF-16 surrogates (not I-JSON, RFC 7493 §2.1; they can arrive as `\ud800` escapes
 * in request bodies). Object members whose value is `undefined` are omitted, as JSON does.
 * Values with `toJSON` (e.g. `Date`) are serialised through it.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(toJsonValue(value, '$', new Set()));
  if (text === undefined) throw unrepresentable('$', 'value has no JSON form');
  return text;
}

/** SHA-256 of `data` (a string is hashed as its UTF-8 bytes), as 64 lowercase hex characters. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of `data` (a string is hashed as its UTF-8 bytes), as unpadded base64url (43 characters). */
export function sha256Base64Url(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('base64url');
}

function unrepresentable(path: string, reason: string) {
  return cryptoError('canonical_json_unrepresentable', `Cannot canonicalise ${path}: ${reason}`, { path });
}

// Lone high surrogate not followed by a low one, or lone low surrogate not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function checkString(text: string, path: string): void {
  if (LONE_SURROGATE.test(text)) throw unrepresentable(path, 'string holds a lone UTF-16 surrogate');
}

/** Returns a plain JSON value equal to what `canonicalize` would serialise, refusing lossy inputs. */
function toJsonValue(value: unknown, path: string, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
      checkString(value, path);
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw unrepresentable(path, `${value} is not a JSON number`);
      return value;
    case 'boolean':
      return value;
    case 'undefined':
      throw unrepresentable(path, 'undefined has no JSON form');
    case 'bigint':
    case 'function':
    case 'symbol':
      throw unrepresentable(path, `a ${typeof value} has no JSON form`);
    case 'object':
      break;
  }
  if (value === null) return null;
  const object = value as object & { toJSON?: unknown };
  if (typeof object.toJSON === 'function') {
    return toJsonValue((object as { toJSON(): unknown }).toJSON(), path, ancestors);
  }
  if (object instanceof Map || object instanceof Set) throw unrepresentable(path, 'Map and Set have no JSON form');
  if (ancestors.has(object)) throw unrepresentable(path, 'cyclic structure');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) return object.map((item: unknown, index) => toJsonValue(item, `${path}[${index}]`, ancestors));
    // Null prototype: a member named "__proto__" must stay an own member, not become the prototype.
    const result = Object.create(null) as Record<string, unknown>;
    for (const [key, member] of Object.entries(object)) {
      checkString(key, `${path}.${key}`);
      if (member === undefined) continue;
      result[key] = toJsonValue(member, `${path}.${key}`, ancestors);
    }
    return result;
  } finally {
    ancestors.delete(object);
  }
}
