import { Param, type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { validationError } from '@svc/errors';
import { idPattern, idShape, isIdOf, type IdKind } from '@svc/ids';

/**
 * Checks a path parameter against the identifier registry: a malformed id is refused with 422
 * `validation_failed` naming the parameter before anything is looked up. The OpenAPI document
 * shows the pattern of the parameter (see {@link IdPipe.pattern}).
 */
export class IdPipe implements PipeTransform<unknown, string> {
  constructor(readonly kind: IdKind) {}

  /** The parameter's pattern, for the OpenAPI document. */
  get pattern(): string {
    return idPattern(this.kind).source;
  }

  transform(value: unknown, metadata: ArgumentMetadata): string {
    if (isIdOf(this.kind, value)) return value;
    const field = metadata.data ?? 'id';
    throw validationError([
      {
        field,
        constraint: 'matches',
        message: `${field} must be a well-formed ${this.kind.replace(/_/g, ' ')} id (${idShape(this.kind)})`,
      },
    ]);
  }
}

/** `@Param(name)` whose value must be a well-formed identifier of `kind` (422 naming it otherwise). */
export function IdParam(name: string, kind: IdKind): ParameterDecorator {
  return Param(name, new IdPipe(kind));
}
