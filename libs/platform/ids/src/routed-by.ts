/** Body fields, per DTO class, whose identifier decides the region that serves the request. */
const ROUTED_FIELDS = new WeakMap<object, readonly string[]>();

/**
 * Class decorator for a request DTO: the regional identifiers in `fields` (a string or an array
 * of strings) home the request like an identifier in its path, so a foreign one is answered 421
 * naming its home region before any service reads its own, empty, tables. Nested DTOs carry their
 * own marker.
 *
 * `@RoutedBy('flow_id') export class CreateDecisionBody { … }`
 */
export function RoutedBy(...fields: string[]): ClassDecorator {
  return (target) => {
    ROUTED_FIELDS.set(target, [...routedFieldsOf(target), ...fields]);
  };
}

/** The fields {@link RoutedBy} marked on `type` and the classes it extends. */
export function routedFieldsOf(type: unknown): readonly string[] {
  for (let current = type; typeof current === 'function'; current = Object.getPrototypeOf(current) as unknown) {
    const fields = ROUTED_FIELDS.get(current);
    if (fields) return fields;
  }
  return [];
}

/** DTO classes whose person identifiers are looked up across regions rather than homed. */
const CROSS_BORDER = new WeakSet<object>();

/**
 * Class decorator for the request DTO of a cross-border lookup (the directory): a person of
 * another region named in its body is the question, not a write to be homed, so the person rule
 * of `HomeRegionPipe` does not apply to it. `@RoutedBy` marks still do.
 */
export function CrossBorder(): ClassDecorator {
  return (target) => {
    CROSS_BORDER.add(target);
  };
}

/** Whether `type` (or a class it extends) is marked {@link CrossBorder}. */
export function isCrossBorder(type: unknown): boolean {
  for (let current = type; typeof current === 'function'; current = Object.getPrototypeOf(current) as unknown) {
    if (CROSS_BORDER.has(current)) return true;
  }
  return false;
}
