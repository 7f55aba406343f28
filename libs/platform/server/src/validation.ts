import { ValidationPipe } from '@nestjs/common';
import { flattenValidationErrors, validationError } from '@svc/errors';
import type { ValidationError, ValidatorOptions } from 'class-validator';
import { isNullable } from './nullable';

/** A class instance made from a DTO (top level or nested), as opposed to a free-form JSON object. */
function isDtoInstance(value: unknown): value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype !== Object.prototype && prototype !== null;
}

/**
 * Every field holding `null` in a DTO (and the DTOs nested in it) that is not marked
 * {@link Nullable}. `@IsOptional` alone skips validation for `null` as for an absent field, so a
 * `null` would otherwise reach code that expects a value. Free-form objects are not inspected.
 */
export function nullFields(dto: object, parent = ''): string[] {
  const fields: string[] = [];
  for (const [key, value] of Object.entries(dto)) {
    const field = parent ? `${parent}.${key}` : key;
    if (value === null) {
      if (!isNullable(dto, key)) fields.push(field);
    } else if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (isDtoInstance(item)) fields.push(...nullFields(item, `${field}.${index}`));
      });
    } else if (isDtoInstance(value)) {
      fields.push(...nullFields(value, field));
    }
  }
  return fields;
}

class StrictValidationPipe extends ValidationPipe {
  protected override async validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> {
    const errors = await super.validate(object, validatorOptions);
    const nulls: ValidationError[] = nullFields(object).map((field) => ({ property: field, constraints: { isNotNull: `${field} must not be null` }, children: [] }));
    return [...nulls, ...errors];
  }
}

/**
 * Validates every DTO: unknown fields are refused, types are not coerced silently, `null` is
 * refused unless the field is {@link Nullable}, and the error names the field (400 for a wrong
 * shape, 422 for a value breaking a rule).
 */
export function strictValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationError(flattenValidationErrors(errors)),
  });
}
