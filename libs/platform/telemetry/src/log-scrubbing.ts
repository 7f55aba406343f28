import pino from 'pino';

/** What stands in for a censored value. */
export const CENSOR = '[redacted]';

/** Credentials, which travel in these headers and fields. */
const CREDENTIAL_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'dpop',
  'x-api-key',
  'x-publishable-key',
  'api_token',
  'apiToken',
  'api_key',
  'token',
  'session_token',
  'sessionToken',
  'access_token',
  'refresh_token',
  'id_token',
  'secret',
  'signing_secret',
  'webhook_secret',
  'client_secret',
  'password',
  'private_key',
  'authorization_code',
  'code_verifier',
  'device_code',
  'user_code',
];
/** People's contact data and the organisation's identifiers of them. */
const PERSONAL_FIELDS = [
  'email',
  'subject_email',
  'subjectEmail',
  'subject_external_id',
  'subjectExternalId',
  'external_id',
  'user_identifier',
  'principal_id',
];
/** Request bodies and SQL bind values: they carry all of the above. */
const CONTENT_FIELDS = ['body', 'parameters'];

/** Field names censored wherever they appear in a logged object (the SQLSTATE `code` is not one). */
export const REDACTED_FIELDS: ReadonlySet<string> = new Set([...CREDENTIAL_FIELDS, ...PERSONAL_FIELDS, ...CONTENT_FIELDS]);

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
  // Most strings (routes, ids, statuses) hold none of the patterns: skip the replacements.
  if (!text.includes('@') && !text.includes('"') && !text.includes('Key (') && !text.includes('Failing row')) return text;
  return text
    .replace(QUOTED_INPUT, '$1 "[redacted]"')
    .replace(KEY_VALUE, 'Key ($1)=([redacted])$2')
    .replace(FAILING_ROW, 'Failing row contains ([redacted])')
    .replace(EMAIL, '[email]');
}

const MAX_CAUSE_DEPTH = 5;

function scrubSerialized(serialized: Record<string, unknown>, depth: number): Record<string, unknown> {
  for (const field of VALUE_CARRYING_ERROR_FIELDS) delete serialized[field];
  for (const key of Object.keys(serialized)) if (REDACTED_FIELDS.has(key)) serialized[key] = CENSOR;
  if (typeof serialized.message === 'string') serialized.message = scrubText(serialized.message);
  if (typeof serialized.stack === 'string') serialized.stack = scrubText(serialized.stack);
  if (serialized.cause !== undefined)
    serialized.cause = depth < MAX_CAUSE_DEPTH ? serializeError(serialized.cause, depth + 1) : '[cause omitted]';
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
 * Every logged object on its way out: a field named in REDACTED_FIELDS is censored at any depth,
 * and string values lose emails and quoted inputs. Errors are left to {@link serializeError}.
 */
export function scrubLogObject(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object' || value instanceof Error || Buffer.isBuffer(value) || depth >= MAX_SCRUB_DEPTH)
    return value;
  if (Array.isArray(value)) return value.map((item: unknown) => scrubLogObject(item, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const scrubbed: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>))
    scrubbed[key] = REDACTED_FIELDS.has(key) ? CENSOR : scrubLogObject(item, depth + 1);
  return scrubbed;
}
