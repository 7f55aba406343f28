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
