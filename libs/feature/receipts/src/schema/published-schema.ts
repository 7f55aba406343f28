import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { sha256Hex } from '@svc/crypto';
// Imported (not only read) so the TypeScript build copies the file beside the compiled code.
import schemaDocument from './svc-cr-2.13.schema.json';

/** The schema's `$id`: an absolute URI whose path this service also serves. */
export const RECEIPT_SCHEMA_ID: string = schemaDocument.$id;

/** Path of the current v2 schema (spec, Endpoints: `/schemas/receipt/v2/record.json`). */
export const RECEIPT_SCHEMA_PATH = '/schemas/receipt/v2/record.json';

/** Path of the schema at its own identifier (spec, Versioning 6). */
export const RECEIPT_SCHEMA_ID_PATH: string = new URL(RECEIPT_SCHEMA_ID).pathname;

/** Media type the schema is served with (stable across releases). */
export const RECEIPT_SCHEMA_MEDIA_TYPE = 'application/schema+json';

/** Location of the committed schema file (source tree and build output alike). */
export const RECEIPT_SCHEMA_FILE = join(__dirname, 'svc-cr-2.13.schema.json');

let bytes: Buffer | undefined;

/**
 * The committed schema file's exact bytes. Served as they are (byte-verbatim, spec Versioning 6):
 * never parsed and re-serialised, so a published digest of the file stays true.
 */
export function receiptSchemaBytes(): Buffer {
  bytes ??= readFileSync(RECEIPT_SCHEMA_FILE);
  return bytes;
}

/** Strong ETag of the schema bytes (quoted SHA-256 hex). */
export function receiptSchemaEtag(): string {
  return `"${sha256Hex(receiptSchemaBytes())}"`;
}

let validator: ValidateFunction | undefined;

/** A problem found by {@link validateReceiptDocument}: JSON pointer of the instance and the rule broken. */
export interface SchemaProblem {
  path: string;
  message: string;
}

/**
 * Validates a document against the published schema (Draft 2020-12, formats checked). Compiled
 * once from the committed bytes, so the check and the publication cannot drift apart.
 */
export function validateReceiptDocument(document: unknown): { valid: true } | { valid: false; problems: SchemaProblem[] } {
  validator ??= compileReceiptSchema(JSON.parse(receiptSchemaBytes().toString('utf8')) as object);
  if (validator(document)) return { valid: true };
  return { valid: false, problems: (validator.errors ?? []).map(toProblem) };
}

/** Compiles a receipt schema with the options this platform validates with (strict, all errors, formats). */
export function compileReceiptSchema(schema: object): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
  addFormats(ajv);
  return ajv.compile(schema);
}

function toProblem(error: ErrorObject): SchemaProblem {
  return { path: error.instancePath || '/', message: `${error.keyword}: ${error.message ?? 'invalid'}` };
}
