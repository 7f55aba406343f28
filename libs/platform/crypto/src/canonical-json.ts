import { createHash } from 'node:crypto';
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
  try {
    return write(value, new Set());
  } catch (error) {
    if (error instanceof Unrepresentable) throw unrepresentable(`$${error.path}`, error.reason);
    throw error;
  }
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

/**
 * A value without a JSON form, found while writing; `path` grows by one segment per level as the
 * error passes up, so the happy path builds no path strings.
 */
class Unrepresentable {
  path = '';
  constructor(readonly reason: string) {}
}

/** Prefixes the path segment of the current level to an {@link Unrepresentable} passing through. */
function within(error: unknown, segment: string): unknown {
  if (error instanceof Unrepresentable) error.path = `${segment}${error.path}`;
  return error;
}

/** Native `String.prototype.isWellFormed` (ES2024, every supported Node): no lone UTF-16 surrogate. */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The canonical text of `value`, validated and written in one pass: JSON.stringify for strings
 * and numbers (RFC 8785 adopts ECMAScript's forms), members sorted by UTF-16 code units (the
 * default sort order of string keys). `ancestors` holds the objects being written, for cycles.
 */
function write(value: unknown, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      if (!isWellFormed(value)) throw new Unrepresentable('string holds a lone UTF-16 surrogate');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new Unrepresentable(`${value} is not a JSON number`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      throw new Unrepresentable('undefined has no JSON form');
    case 'bigint':
    case 'function':
    case 'symbol':
      throw new Unrepresentable(`a ${typeof value} has no JSON form`);
    case 'object':
      break;
  }
  if (value === null) return 'null';
  const object = value as object & { toJSON?: unknown };
  if (typeof object.toJSON === 'function') return write((object as { toJSON(): unknown }).toJSON(), ancestors);
  if (object instanceof Map || object instanceof Set) throw new Unrepresentable('Map and Set have no JSON form');
  if (ancestors.has(object)) throw new Unrepresentable('cyclic structure');
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      let out = '[';
      for (let index = 0; index < object.length; index += 1) {
        try {
          out += `${index === 0 ? '' : ','}${write(object[index], ancestors)}`;
        } catch (error) {
          throw within(error, `[${index}]`);
        }
      }
      return `${out}]`;
    }
    const record = object as Record<string, unknown>;
    let out = '';
    for (const key of Object.keys(record).sort()) {
      if (!isWellFormed(key)) throw within(new Unrepresentable('string holds a lone UTF-16 surrogate'), `.${key}`);
      const member = record[key];
      if (member === undefined) continue;
      try {
        out += `${out.length === 0 ? '' : ','}${JSON.stringify(key)}:${write(member, ancestors)}`;
      } catch (error) {
        throw within(error, `.${key}`);
      }
    }
    return `{${out}}`;
  } finally {
    ancestors.delete(object);
  }
}
