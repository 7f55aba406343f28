import type { Hash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { JSONParser, TokenType } from '@streamparser/json';
import { commonError, validationError } from '@svc/errors';
import { DEFAULT_JSON_LIMITS, JsonShapeGuard, refuseUnsafeJsonValue, type StreamedBody } from '@svc/server';
import { IMPORT_BODY_TOO_LARGE } from './import-limits';

/** Rows handed on at a time while an import body is read (and stored per statement). */
export const IMPORT_READ_CHUNK = 1_000;

/** Members of a JSON import body other than its rows (flow_id, dry_run and any unknown ones), as sent. */
export type ImportBodyFields = Record<string, unknown>;

const NEWLINE = 0x0a;
/** A row of an NDJSON body sits where `records[i]` sits in a JSON body: two levels less of nesting to spend. */
const ROW_LIMITS = { ...DEFAULT_JSON_LIMITS, maxDepth: DEFAULT_JSON_LIMITS.maxDepth - 2 };

function tooLarge(limitBytes: number): Error {
  return commonError('payload_too_large', IMPORT_BODY_TOO_LARGE, { limit_bytes: limitBytes });
}

/** A row must be a JSON object whose strings Postgres can store; errors name it `records.<index>`. */
function checkedRow(value: unknown, index: number): Record<string, unknown> {
  const field = `records.${index}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw validationError([{ field, constraint: 'isObject', message: `${field} must be an object` }]);
  refuseUnsafeJsonValue(value, field);
  return value as Record<string, unknown>;
}

/** The body's bytes as they arrive, refused beyond the route's limit, each added to `digest`. */
async function* boundedBytes(body: StreamedBody, digest: Hash): AsyncGenerator<Buffer> {
  let received = 0;
  const chunks = (body.stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await chunks.next();
    } catch {
      // The client went away mid-upload: its error, not ours (and nobody is left to read the answer).
      throw commonError('invalid_request', 'The request body broke off before its end');
    }
    if (next.done) return;
    received += next.value.length;
    if (received > body.limitBytes) throw tooLarge(body.limitBytes);
    digest.update(next.value);
    yield next.value;
  }
}

/**
 * Reads an import body as it arrives and yields its rows in chunks of {@link IMPORT_READ_CHUNK},
 * never holding more than a chunk: `application/json` as `{flow_id, dry_run, records: [...]}`
 * (members in any order), `application/x-ndjson` as one row per line. The body gets the edge
 * checks of every JSON body — strict UTF-8, nesting and member limits before anything is built,
 * no U+0000, unpaired surrogates or prototype keys — and each row must be an object. A JSON
 * body's other members are put in `fields` as they arrive, for the caller to validate; every byte
 * read goes into `digest` (the request's fingerprint for Idempotency-Key).
 */
export function importRowsOf(body: StreamedBody, fields: ImportBodyFields, digest: Hash): AsyncGenerator<Array<Record<string, unknown>>> {
  return body.mediaType === 'application/x-ndjson' ? ndjsonRows(body, digest) : jsonRows(body, fields, digest);
}

/**
 * Follows the tokens of a JSON body's root object: the names of its members (a repeated one is
 * refused) and whether `records` holds an array. The parser itself forgets members once built.
 */
class RootMembers {
  readonly names = new Set<string>();
  recordsIsArray: boolean | undefined;
  private depth = 0;
  private expectName = false;
  private current: string | undefined;

  see(token: TokenType, value: unknown): void {
    if (this.depth === 1) {
      if (token === TokenType.STRING && this.expectName) {
        this.current = value as string;
        if (this.names.has(this.current))
          throw commonError('malformed_json', `Request body has the member ${JSON.stringify(this.current)} twice`);
        this.names.add(this.current);
        this.expectName = false;
      } else if (token === TokenType.COMMA) this.expectName = true;
      else if (token !== TokenType.COLON && this.current === 'records' && this.recordsIsArray === undefined)
        this.recordsIsArray = token === TokenType.LEFT_BRACKET;
    }
    if (token === TokenType.LEFT_BRACE || token === TokenType.LEFT_BRACKET) {
      this.depth += 1;
      if (this.depth === 1) this.expectName = token === TokenType.LEFT_BRACE;
    } else if (token === TokenType.RIGHT_BRACE || token === TokenType.RIGHT_BRACKET) this.depth -= 1;
  }
}

const notAnArray = () => validationError([{ field: 'records', constraint: 'isArray', message: 'records must be an array' }]);

async function* jsonRows(body: StreamedBody, fields: ImportBodyFields, digest: Hash): AsyncGenerator<Array<Record<string, unknown>>> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const guard = new JsonShapeGuard();
  const parser = new JSONParser({ paths: ['$.records.*', '$.flow_id', '$.dry_run'], keepStack: false });
  const root = new RootMembers();
  let rows: Array<Record<string, unknown>> = [];
  let count = 0;
  let started = false;
  let refused: unknown;
  parser.onToken = ({ token, value }) => {
    if (refused !== undefined) return;
    try {
      root.see(token, value);
    } catch (error) {
      refused = error;
    }
  };
  parser.onValue = ({ value, key, stack }) => {
    if (refused !== undefined) return;
    try {
      if (stack.length === 1) fields[key as string] = value;
      else if (root.recordsIsArray) {
        rows.push(checkedRow(value, count));
        count += 1;
      } else throw notAnArray();
    } catch (error) {
      refused = error;
    }
  };
  parser.onError = () => {
    refused ??= commonError('malformed_json', 'Request body is not valid JSON');
  };
  const feed = (text: string): void => {
    if (!started) {
      const first = text.trimStart();
      if (first === '') return;
      started = true;
      if (!first.startsWith('{')) throw commonError('malformed_json', 'An import body must be a JSON object with flow_id and records');
    }
    guard.feed(text);
    if (parser.isEnded && text.trim() === '') return;
    try {
      parser.write(text);
    } catch {
      refused ??= commonError('malformed_json', 'Request body is not valid JSON');
    }
    if (refused !== undefined) throw refused;
  };
  for await (const chunk of boundedBytes(body, digest)) {
    feed(decode(decoder, chunk, true));
    if (rows.length >= IMPORT_READ_CHUNK) {
      yield rows;
      rows = [];
    }
  }
  feed(decode(decoder, undefined, false));
  if (!started) throw commonError('malformed_json', 'Request body is empty but declared as JSON');
  if (!parser.isEnded) throw commonError('malformed_json', 'Request body is not valid JSON: it ends before its last value');
  if (rows.length > 0) yield rows;
  if (!root.names.has('records'))
    throw validationError([{ field: 'records', constraint: 'isDefined', message: 'records should not be null or undefined' }]);
  if (!root.recordsIsArray) throw notAnArray();
  // Members nobody reads are named to the caller's validation, which refuses them.
  for (const name of root.names) if (name !== 'records' && !(name in fields)) fields[name] = true;
}

async function* ndjsonRows(body: StreamedBody, digest: Hash): AsyncGenerator<Array<Record<string, unknown>>> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rows: Array<Record<string, unknown>> = [];
  let count = 0;
  let partial: Buffer[] = [];
  const take = (line: Buffer): void => {
    const text = decode(decoder, line, false).trim();
    if (text === '') return;
    new JsonShapeGuard(ROW_LIMITS).feed(text);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw commonError('malformed_json', `Line ${count + 1} of the body is not valid JSON`, { field: `records.${count}` });
    }
    rows.push(checkedRow(value, count));
    count += 1;
  };
  for await (const chunk of boundedBytes(body, digest)) {
    // A newline byte never occurs inside a UTF-8 sequence, so lines split on bytes decode whole.
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      partial.push(chunk.subarray(start, end));
      take(partial.length === 1 ? partial[0]! : Buffer.concat(partial));
      partial = [];
      start = end + 1;
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
    if (rows.length >= IMPORT_READ_CHUNK) {
      yield rows;
      rows = [];
    }
  }
  if (partial.length > 0) take(Buffer.concat(partial));
  if (rows.length > 0) yield rows;
}

function decode(decoder: InstanceType<typeof TextDecoder>, bytes: Buffer | undefined, stream: boolean): string {
  try {
    return decoder.decode(bytes, { stream });
  } catch {
    throw commonError('malformed_json', 'Request body is not valid UTF-8');
  }
}
