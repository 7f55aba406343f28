import { IsString, Matches, type ValidationArguments } from 'class-validator';
import { ID_FORMATS, idPattern, type IdKind } from './identifiers';

/** How an identifier of `kind` looks, for messages: `agent_<region>_…`, `dts_…`. */
export function idShape(kind: IdKind): string {
  const format = ID_FORMATS[kind];
  return format.regional ? `${format.prefix}_<region>_…` : `${format.prefix}_…`;
}

/**
 * Property decorator: the value (each value with `each: true`) is a string and a well-formed
 * identifier of `kind` from the identifier registry; otherwise the request is refused naming the
 * field. The OpenAPI document shows the pattern. Values that cannot be an identifier (U+0000, other
 * kinds, other regions' syntax) never reach a query.
 */
export function IsIdOf(kind: IdKind, options: { each?: boolean } = {}): PropertyDecorator {
  const each = options.each ?? false;
  const isString = IsString({ each });
  const matches = Matches(idPattern(kind), {
    each,
    message: (args: ValidationArguments) =>
      `${each ? `each of ${args.property}` : args.property} must be a well-formed ${kind.replace(/_/g, ' ')} id (${idShape(kind)})`,
  });
  return (target: object, property: string | symbol) => {
    isString(target, property);
    matches(target, property);
  };
}
