import { validationError } from '@svc/errors';

/** A UTF-16 surrogate without its pair: like U+0000, Postgres text and jsonb cannot store it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains U+0000';
  return LONE_SURROGATE.test(text) ? 'contains an unpaired UTF-16 surrogate' : undefined;
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
    if (problem)
      throw validationError([
        { field: path || '(body)', constraint: 'isWellFormedString', message: `${path || 'The body'} ${problem}, which is not accepted` },
      ]);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => refuseUnstorableStrings(item, fieldPath(path, String(index))));
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const keyProblem = problemOf(key);
    if (keyProblem)
      throw validationError([
        {
          field: path || '(body)',
          constraint: 'isWellFormedString',
          message: `A field name in ${path || 'the body'} ${keyProblem}, which is not accepted`,
        },
      ]);
    refuseUnstorableStrings(item, fieldPath(path, key));
  }
}
