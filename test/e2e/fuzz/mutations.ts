import fc from 'fast-check';

/** One generated request for an operation: its body bytes, Content-Type and credentials. */
export interface FuzzRequest {
  kind: string;
  body: string | Buffer;
  /** null sends no Content-Type header. */
  contentType: string | null;
  auth: 'valid' | 'missing' | 'wrong';
}

type Json = unknown;
type Path = readonly (string | number)[];

/** Every location of a value, the root included, where a mutation can land. */
function pathsOf(value: Json, path: Path = [], out: Path[] = []): Path[] {
  out.push(path);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...path, index], out));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], out);
  return out;
}

function setAt(root: Json, path: Path, value: Json): Json {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, Json>;
  let cursor = copy;
  for (const key of path.slice(0, -1)) cursor = cursor[key] as Record<string | number, Json>;
  cursor[path[path.length - 1]!] = value;
  return copy;
}

function objectPaths(root: Json): Path[] {
  return pathsOf(root).filter((path) => {
    let cursor: Json = root;
    for (const key of path) cursor = (cursor as Record<string | number, Json>)[key];
    return cursor !== null && typeof cursor === 'object' && !Array.isArray(cursor);
  });
}

function nested(depth: number, object: boolean): string {
  return object ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

const json = (body: Json, kind: string): FuzzRequest => ({
  kind,
  body: JSON.stringify(body),
  contentType: 'application/json',
  auth: 'valid',
});

/** Built once: the arbitraries are rebuilt for every generated request, and this one is large. */
const WIDE_OBJECT = json(Object.fromEntries(Array.from({ length: 1_500 }, (_, i) => [`k${i}`, i])), 'wide object');

const WRONG_TYPES: Json[] = [0, -1, 1.5, 1e308, true, false, '', 'text', [], [1], {}, { a: {} }, [null]];
const UNKNOWN_NAMES = ['zz_unknown', '__proto__', 'constructor', 'application_id', 'region', 'home_country', 'status', 'id', 'created_at'];
const ODD_STRINGS = [
  'a\u0000b',
  '\u0000',
  'x\ud800',
  '\udc00y',
  '\ud800\ud800',
  'e\u0301',
  '\u202e',
  '\ufeff',
  '😀'.repeat(50),
  ' '.repeat(3),
];

/** Text-level damage to a JSON body: what a broken client or an attacker sends. */
const MALFORMED: ReadonlyArray<(text: string) => string | Buffer> = [
  (t) => t.slice(0, Math.max(1, Math.floor(t.length / 2))),
  (t) => t.replace(/}$/, ',}'),
  (t) => t.replace(/"/g, "'"),
  (t) => `${t} garbage`,
  () => '',
  (t) => `\ufeff${t}`,
  () => 'NaN',
  (t) => `/* c */${t}`,
  (t) => t.replace(/"$|"(?=[,}])/, '\u0001"'),
  (t) =>
    Buffer.concat([
      Buffer.from(t.slice(0, t.indexOf('"') + 1)),
      Buffer.from([0xff, 0xfe, 0xc0, 0xaf]),
      Buffer.from(t.slice(t.indexOf('"') + 1)),
    ]),
  (t) => Buffer.from(t, 'utf16le'),
  (t) => t.replace(/^\{/, '{"a":1,"a":2,'),
  (t) => t.replace(/^\{/, '{"n":1e999999,'),
  (t) => t.replace(/^\{/, '{"s":"\\ud800",'),
  (t) => t.replace(/^\{/, '{"s":"\\u0000",'),
];

/**
 * Requests derived from a seed body: the seed itself, malformed text, deep nesting, U+0000 and
 * lone surrogates, nulls, wrong types, unknown and pollution fields, odd top-level values,
 * oversized bodies, wrong or missing Content-Type, and missing or wrong credentials.
 */
export function mutatedRequests(seed: fc.Arbitrary<Json>): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(seed, fc.nat(), fc.nat()).chain(([body, pick, other]) => {
    const paths = pathsOf(body);
    const path = paths[pick % paths.length]!;
    const objects = objectPaths(body);
    const text = JSON.stringify(body);
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant(json(body, 'seed')) },
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(...MALFORMED)
          .map((damage) => ({ kind: 'malformed', body: damage(text), contentType: 'application/json', auth: 'valid' as const })),
      },
      {
        weight: 3,
        arbitrary: fc.tuple(fc.constantFrom(20, 33, 64, 2_000, 10_000, 100_000), fc.boolean()).map(([depth, object]) => ({
          kind: `deep ${depth}`,
          body:
            path.length === 0
              ? nested(depth, object)
              : JSON.stringify(setAt(body, path, '__DEEP__')).replace('"__DEEP__"', nested(depth, object)),
          contentType: 'application/json',
          auth: 'valid' as const,
        })),
      },
      { weight: 4, arbitrary: fc.constantFrom(...ODD_STRINGS).map((s) => json(setAt(body, path, s), 'odd string')) },
      { weight: 3, arbitrary: fc.constant(json(setAt(body, path, null), `null at ${path.join('.')}`)) },
      { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES).map((v) => json(setAt(body, path, v), 'wrong type')) },
      {
        weight: 2,
        arbitrary: fc
          .tuple(fc.constantFrom(...UNKNOWN_NAMES), fc.constantFrom<Json>('x', 1, { prototype: { admin: true } }, { admin: true }))
          .map(([name, value]) => {
            const at = objects[other % Math.max(1, objects.length)] ?? [];
            const target = at.length === 0 ? body : at.reduce<Json>((c, k) => (c as Record<string | number, Json>)[k], body);
            const base = target !== null && typeof target === 'object' && !Array.isArray(target) ? (target as Record<string, Json>) : {};
            const widened = JSON.stringify(base).replace(
              /^\{/,
              `{${JSON.stringify(name)}:${JSON.stringify(value)}${Object.keys(base).length ? ',' : ''}`,
            );
            return {
              kind: 'unknown field',
              body: at.length === 0 ? widened : JSON.stringify(setAt(body, at, '__W__')).replace('"__W__"', widened),
              contentType: 'application/json',
              auth: 'valid' as const,
            };
          }),
      },
      { weight: 1, arbitrary: fc.constantFrom<Json>(null, [], [body], 'text', 0, true).map((v) => json(v, 'top-level type')) },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(1_100_000, 2_500_000)
          .map((size) => json(setAt(body, path.length ? path : ['pad'], 'x'.repeat(size)), `oversize ${size}`)),
      },
      { weight: 1, arbitrary: fc.constant(WIDE_OBJECT) },
      {
        weight: 2,
        arbitrary: fc
          .constantFrom(
            null,
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/json; charset=utf-16',
            'multipart/form-data; boundary=x',
            'application/xml',
          )
          .map((contentType) => ({ kind: `content-type ${contentType}`, body: text, contentType, auth: 'valid' as const })),
      },
      {
        weight: 2,
        arbitrary: fc.constantFrom<'missing' | 'wrong'>('missing', 'wrong').map((auth) => ({ ...json(body, `auth ${auth}`), auth })),
      },
    );
  });
}
