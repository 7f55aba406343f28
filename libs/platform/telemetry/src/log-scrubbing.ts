import pino from 'pino';

/**
 * Fields of database errors that carry the values of a statement: TypeORM's `parameters` (every
 * bind value: emails, external ids, encrypted secret bytes), the driver error it wraps, and pg's
 * `detail` ("Key (email)=(…) already exists", "Failing row contains (…)"), `where` and
 * `internalQuery`. The SQLSTATE `code`, `constraint`, `table`, `column` and the statement text
 * (placeholders only) stay: they are what an operator needs.
 */
const VALUE_CARRYING_ERROR_FIELDS = ['parameters', 'driverError', 'detail', 'where', 'internalQuery'] as const;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
/** Postgres messages quoting the refused input: `invalid input syntax for type uuid: "…"`, enums, JSON tokens. */
const QUOTED_INPUT = /((?:invalid input syntax for type|invalid input value for enum) [^:"]+:|Token) "(?:[^"\\]|\\.)*"/g;
const KEY_VALUE = /Key \(([^)]*)\)=\((?:.*?)\)( already exists| is not present| conflicts)/g;
const FAILING_ROW = /Failing row contains \(.*\)/g;

/** Removes emails and values Postgres quotes back from free text (messages, stacks). */
export function scrubText(text: string): string {
  return text
    .replace(QUOTED_INPUT, '$1 "[redacted]"')
    .replace(KEY_VALUE, 'Key ($1)=([redacted])$2')
    .replace(FAILING_ROW, 'Failing row contains ([redacted])')
    .replace(EMAIL, '[email]');
}

const MAX_CAUSE_DEPTH = 5;

function scrubSerialized(serialized: Record<string, unknown>, depth: number): Record<string, unknown> {
  for (const field of VALUE_CARRYING_ERROR_FIELDS) delete serialized[field];
  if (typeof serialized.message === 'string') serialized.message = scrubText(serialized.message);
  if (typeof serialized.stack === 'string') serialized.stack = scrubText(serialized.stack);
  if (serialized.cause !== undefined) serialized.cause = depth < MAX_CAUSE_DEPTH ? serializeError(serialized.cause, depth + 1) : '[cause omitted]';
  if (Array.isArray(serialized.errors)) serialized.errors = serialized.errors.map((inner: unknown) => serializeError(inner, depth + 1));
  // Errors nested under other names (pino serialised them already): same treatment.
  for (const [key, value] of Object.entries(serialized)) {
    if (key !== 'cause' && value !== null && typeof value === 'object' && 'message' in value && 'stack' in value) {
      serialized[key] = depth < MAX_CAUSE_DEPTH ? scrubSerialized({ ...(value as Record<string, unknown>) }, depth + 1) : '[error omitted]';
    }
  }
  return serialized;
}

/**
 * The `err` (and `error`) serializer of every logger: pino's standard error serializer, minus the
 * fields that carry bind values, with emails and quoted inputs removed from message and stack.
 * Strings (callers logging `error.message`) are scrubbed the same way.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (typeof error === 'string') return scrubText(error);
  if (error instanceof Error) return scrubSerialized({ ...(pino.stdSerializers.err(error) as unknown as Record<string, unknown>) }, depth);
  if (error !== null && typeof error === 'object') return scrubSerialized({ ...(error as Record<string, unknown>) }, depth);
  return error;
}

const MAX_SCRUB_DEPTH = 6;

/**
 * A last line of defence over every logged object: string values anywhere in plain objects and
 * arrays lose emails and quoted inputs. Errors are left to {@link serializeError}.
 */
export function scrubLogObject(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object' || value instanceof Error || Buffer.isBuffer(value) || depth >= MAX_SCRUB_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubLogObject(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [key, scrubLogObject(item, depth + 1)]));
}
