import { validationError } from '@svc/errors';

/** U+0000, or a UTF-16 surrogate without its pair: neither can be stored as Postgres text or jsonb. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  const match = UNSTORABLE.exec(text);
  if (!match) return undefined;
  return match[0] === '\u0000' ? 'contains U+0000' : 'contains an unpaired UTF-16 surrogate';
}

function fieldPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

/**
 * Throws 400 naming the field (its dotted path, array indexes as numbers) when any string of a
 * parsed body, query or set of path parameters, key or value, holds U+0000 or an unpaired
 * surrogate. Walks recursively: bodies reach here only within the nesting limit.
 */
export function refuseUnstorableStrings(value: unknown, path = ''): void {
  if (typeof value === 'string') {
    const problem = problemOf(value);
    if (problem) throw validationError([{ field: path || '(body)', constraint: 'isWellFormedString', message: `${path || 'The body'} ${problem}, which is not accepted` }]);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => refuseUnstorableStrings(item, fieldPath(path, String(index))));
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const keyProblem = problemOf(key);
    if (keyProblem) throw validationError([{ field: path || '(body)', constraint: 'isWellFormedString', message: `A field name in ${path || 'the body'} ${keyProblem}, which is not accepted` }]);
    refuseUnstorableStrings(item, fieldPath(path, key));
  }
}
