import fc from 'fast-check';

/** The parts of an OpenAPI 3.1 / JSON Schema object the generator reads. */
export interface Schema {
  type?: string | string[];
  $ref?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
}

const MAX_NESTING = 4;

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2027-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.format === 'uri' || schema.format === 'url') return fc.constantFrom('https://example.com/a', 'https://app.example.org/hook');
  if (schema.format === 'email') return fc.constantFrom('a@example.com', 'b.c@example.org');
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 200);
    } catch {
      // A pattern fast-check cannot generate from: plain strings still reach validation.
    }
  }
  const minLength = schema.minLength ?? 1;
  return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 24, 24)) });
}

/**
 * Values shaped like a schema (types, required members, enums, patterns where fast-check can
 * generate them): a body that passes the structural checks often enough to reach the rules and
 * the handler, which is where the mutations that follow are meant to land.
 */
export function valueOf(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const target = components[schema.$ref.split('/').pop()!];
    return target && depth < MAX_NESTING ? valueOf(target, components, depth + 1) : fc.constant({});
  }
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((s) => valueOf(s, components, depth)));
  if (schema.allOf?.length) return valueOf(schema.allOf[0]!, components, depth);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? 'object') {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1_000, 1_000_000) });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1_000, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth < MAX_NESTING
        ? fc.array(valueOf(schema.items ?? { type: 'string' }, components, depth + 1), { minLength: schema.minItems ?? 1, maxLength: 3 })
        : fc.constant([]);
    default:
      if (schema.properties && depth < MAX_NESTING) {
        const members = Object.fromEntries(Object.entries(schema.properties).map(([name, s]) => [name, valueOf(s, components, depth + 1)]));
        return fc.record(members, { requiredKeys: (schema.required ?? []).filter((name) => name in members) });
      }
      return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 });
  }
}
