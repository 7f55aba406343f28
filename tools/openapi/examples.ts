import fc from 'fast-check';

type Json = Record<string, unknown>;

/** The parts of a JSON Schema (OpenAPI 3.1) the example writer reads. */
interface Schema {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  examples?: unknown[];
  default?: unknown;
}

const FIXED = {
  'date-time': '2026-11-25T09:30:00.000Z',
  date: '2026-11-25',
  email: 'ada@example.com',
  url: 'https://shop.example.com/hooks/consent',
  uri: 'https://shop.example.com/hooks/consent',
} as const;

/** Deterministic characters of a class like `a-z2-7` for an id's random part. */
function fromClass(characterClass: string, length: number, seed: number): string {
  const chars: string[] = [];
  for (const [, from, to, single] of characterClass.matchAll(/(.)-(.)|(.)/g)) {
    if (single !== undefined) chars.push(single);
    else for (let c = from!.charCodeAt(0); c <= to!.charCodeAt(0); c++) chars.push(String.fromCharCode(c));
  }
  let out = '';
  let state = (seed % 2147483646) + 1;
  for (let i = 0; i < length; i++) {
    state = (state * 48271) % 2147483647;
    out += chars[Math.floor((state / 2147483647) * chars.length)];
  }
  return out;
}

function seedOf(text: string): number {
  let hash = 7;
  for (const ch of text) hash = (hash * 31 + ch.charCodeAt(0)) % 2 ** 31;
  return hash;
}

/** A string matching a pattern: ids (`^flw_(us|eu|ap|dev)_[a-z2-7]{20}$`) read like ids, others come from fast-check with a fixed seed. */
function stringMatching(pattern: string, hint: string, fits: (value: string) => boolean): string {
  const id = /^\^([a-z]+)_\(us\|[^)]*\)_\[([^\]]+)\]\{(\d+)\}\$$/.exec(pattern);
  if (id) return `${id[1]}_eu_${fromClass(id[2]!, Number(id[3]), seedOf(pattern))}`;
  if (pattern.startsWith('^P(?!$)')) return 'P1Y';
  if (pattern === '^[A-Z]{2}$') return 'FR';
  if (pattern === '^[A-Z]{3}$') return 'EUR';
  if (pattern.startsWith('^[a-z]{2,3}(-[A-Za-z0-9]')) return 'en';
  if (pattern.startsWith('^\\d{4}-')) return FIXED['date-time'];
  if (pattern.startsWith('^(0|[1-9][0-9]{0,17})')) return '49.90';
  if (new RegExp(pattern).test(hint) && fits(hint)) return hint;
  try {
    const [value] = fc.sample(
      fc.stringMatching(new RegExp(pattern)).filter((s) => fits(s) && s.length <= 64 && !/\s/.test(s)),
      { seed: seedOf(pattern), numRuns: 1 },
    );
    if (value !== undefined) return value;
  } catch {
    // fast-check cannot write this pattern: fall through to a plain string.
  }
  return hint;
}

function stringExample(schema: Schema, name: string): string {
  if (schema.format && schema.format in FIXED) return FIXED[schema.format as keyof typeof FIXED];
  const fits = (value: string): boolean =>
    value.length >= Math.max(1, schema.minLength ?? 0) && value.length <= (schema.maxLength ?? Infinity);
  let hint = name ? name.replace(/_/g, ' ') : 'text';
  while (hint.length < (schema.minLength ?? 0)) hint += ' example';
  if (schema.maxLength !== undefined) hint = hint.slice(0, schema.maxLength);
  if (schema.pattern) return stringMatching(schema.pattern, schema.pattern.startsWith('^[a-z') ? name || 'key' : hint, fits);
  if (/(^|_)(at|until|since)$/.test(name)) return FIXED['date-time'];
  if (/url$/.test(name)) return FIXED.url;
  if (name === 'email') return FIXED.email;
  return hint;
}

/**
 * An example value of a schema: its own `examples`/`default` when the DTO gives them, else
 * one written from its type, format, pattern, enum and bounds (first enum value, first branch of a
 * union, every declared property). Deterministic, so the published document does not drift.
 */
export function exampleOf(schema: Schema | undefined, components: Record<string, Schema>, name = '', depth = 0): unknown {
  if (!schema) return {};
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.$ref) {
    const target = components[schema.$ref.split('/').pop()!];
    return depth > 8 ? {} : exampleOf(target, components, name, depth + 1);
  }
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  if (schema.allOf?.length) {
    const parts = schema.allOf.map((part) => exampleOf(part, components, name, depth + 1));
    return parts.every((p) => typeof p === 'object' && p !== null && !Array.isArray(p))
      ? Object.assign({}, ...parts)
      : parts[parts.length - 1];
  }
  const branches = schema.oneOf ?? schema.anyOf;
  // A date-time where a date would also do; otherwise the first branch that is not null.
  const chosen = branches?.find((b) => b.format === 'date-time') ?? branches?.find((b) => b.type !== 'null') ?? branches?.[0];
  if (chosen) return exampleOf(chosen, components, name, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : undefined)) {
    case 'string':
      return stringExample(schema, name);
    case 'integer':
    case 'number': {
      const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      return schema.maximum !== undefined ? Math.min(low, schema.maximum) : low;
    }
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () =>
        exampleOf(schema.items, components, name.replace(/s$/, ''), depth + 1),
      );
    case 'object': {
      const out: Json = {};
      for (const [property, propertySchema] of Object.entries(schema.properties ?? {}))
        out[property] = exampleOf(propertySchema, components, property, depth + 1);
      return out;
    }
    case 'null':
      return null;
    case undefined:
    default:
      return {};
  }
}

const PAGE_EXAMPLES: Record<string, string> = {
  'text/html': '<!doctype html><html lang="en">…</html>',
  'text/javascript': '/* script */',
  'application/javascript': '/* script */',
  'text/plain': '# HELP http_requests_total Requests answered\n# TYPE http_requests_total counter\n',
  'application/jwt': 'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJleGFtcGxlIn0.c2lnbmF0dXJl',
};

function mediaExample(mediaType: string, media: Json, components: Record<string, Schema>): void {
  if (media.example !== undefined || media.examples !== undefined) return;
  const schema = media.schema as Schema | undefined;
  const isString = schema && !schema.$ref && schema.type === 'string' && !schema.pattern && !schema.format;
  media.example = isString ? (PAGE_EXAMPLES[mediaType.split(';')[0]!] ?? 'text') : exampleOf(schema, components);
}

/** An error envelope example naming the first reason code a response lists. */
function errorExample(status: string, schema: Schema | undefined): Json {
  const codes = (schema?.allOf?.[1]?.properties?.reason_code?.enum ?? []) as string[];
  const reasonCode = codes[0] ?? (status === '500' ? 'internal_error' : 'invalid_request');
  return {
    message: `Refused: ${reasonCode.replace(/_/g, ' ')}`,
    reason_code: reasonCode,
    detail: status === '400' || status === '422' ? { field: 'name' } : {},
  };
}

/**
 * Adds examples to the document: every request body, every response body (errors as their
 * envelope with a reason code of that status), every path parameter, and every webhook body.
 */
export function withExamples<T extends Json>(document: T): T {
  const doc = structuredClone(document) as Json & {
    paths: Record<string, Record<string, Json>>;
    webhooks?: Record<string, Record<string, Json>>;
    components: { schemas: Record<string, Schema>; responses?: Record<string, Json> };
  };
  const components = doc.components.schemas;
  const operations = [...Object.values(doc.paths), ...Object.values(doc.webhooks ?? {})].flatMap((methods) => Object.values(methods));
  for (const operation of operations) {
    for (const parameter of (operation.parameters ?? []) as Json[]) {
      if (parameter.in === 'path' && parameter.example === undefined)
        parameter.example = exampleOf(parameter.schema as Schema, components, parameter.name as string);
    }
    const body = operation.requestBody as { content?: Record<string, Json> } | undefined;
    for (const [mediaType, media] of Object.entries(body?.content ?? {})) mediaExample(mediaType, media, components);
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      for (const [mediaType, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
        if (Number(status) >= 400 && (media.schema as Schema | undefined)?.$ref === '#/components/schemas/ErrorEnvelope')
          media.example = errorExample(status, undefined);
        else mediaExample(mediaType, media, components);
      }
    }
  }
  for (const [name, response] of Object.entries(doc.components.responses ?? {})) {
    for (const media of Object.values((response.content ?? {}) as Record<string, Json>))
      media.example = errorExample(name.replace(/^Error/, ''), media.schema as Schema);
  }
  return doc as T;
}
