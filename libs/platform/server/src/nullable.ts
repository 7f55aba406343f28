import 'reflect-metadata';
import { JSONSchema } from 'class-validator-jsonschema';

const NULLABLE = Symbol('nullable');
type Schema = Record<string, unknown>;

function withNull(schema: Schema): Schema {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...(type as unknown[]), 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * Marks a DTO field whose `null` is meaningful (e.g. "clear this value"). Every other optional
 * field refuses `null` with 400 naming it; the OpenAPI document types a marked field `[…, "null"]`.
 */
export function Nullable(): PropertyDecorator {
  return (target, key) => {
    Reflect.defineMetadata(NULLABLE, true, target, key);
    JSONSchema((schema) => withNull(schema as Schema) as never)(target, String(key));
  };
}

/** Whether the field of a DTO instance accepts `null` ({@link Nullable}, inherited from a base class too). */
export function isNullable(instance: object, key: string): boolean {
  return Reflect.getMetadata(NULLABLE, instance, key) === true;
}
