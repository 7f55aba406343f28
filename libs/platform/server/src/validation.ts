import { ValidationPipe } from '@nestjs/common';
import { flattenValidationErrors, validationError } from '@svc/errors';
import { getMetadataStorage, type ValidationError, type ValidatorOptions } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { isNullable } from './nullable';
import { passesValidation } from './validation-fast-path';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;

/**
 * class-validator looks a class's rules up on every validation (and for every nested object) by
 * scanning every class that has rules (`instanceof` each): its cost grows with the number of DTOs
 * in the process. The rules only change while decorators run (at load time), so the answers are
 * kept per class and options, and forgotten whenever a rule is added. The same arrays are returned
 * for the same class, so their grouping by property is kept too (neither is modified by the
 * validator).
 */
export function memoiseValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { svcMemoised?: boolean };
  if (marked.svcMemoised) return;
  marked.svcMemoised = true;
  let byTarget = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const forget = (): void => {
    byTarget = new Map();
    grouped = new WeakMap();
  };
  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    forget();
    addValidationMetadata(metadata);
  };
  const addConstraintMetadata = storage.addConstraintMetadata.bind(storage);
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraintMetadata(metadata);
  };
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (targetConstructor, targetSchema, always, strictGroups, groups) => {
    const key = `${targetSchema}\u0000${always}\u0000${strictGroups}\u0000${groups === undefined ? '' : JSON.stringify(groups)}`;
    let forTarget = byTarget.get(targetConstructor);
    if (!forTarget) byTarget.set(targetConstructor, (forTarget = new Map()));
    let metadatas = forTarget.get(key);
    if (!metadatas) forTarget.set(key, (metadatas = lookup(targetConstructor, targetSchema, always, strictGroups, groups)));
    return metadatas;
  };
  const groupByPropertyName = storage.groupByPropertyName.bind(storage);
  storage.groupByPropertyName = (metadatas) => {
    let byProperty = grouped.get(metadatas);
    if (!byProperty) grouped.set(metadatas, (byProperty = groupByPropertyName(metadatas)));
    return byProperty;
  };
}

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

/** The validator's options of every DTO. */
const STRICT_OPTIONS: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
};

/** The options are the platform's as far as what is valid goes (no groups, nothing skipped): the fast path applies. */
function mirroredOptions(options: ValidatorOptions | undefined): boolean {
  return (
    options !== undefined &&
    options.whitelist === true &&
    options.forbidNonWhitelisted === true &&
    options.forbidUnknownValues === true &&
    !options.groups?.length &&
    !options.always &&
    !options.strictGroups &&
    !options.skipMissingProperties &&
    !options.skipNullProperties &&
    !options.skipUndefinedProperties
  );
}

class StrictValidationPipe extends ValidationPipe {
  protected override async validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> {
    // A valid body (the common case, the hot paths) skips the validator's error building; any
    // doubt runs the full validator, whose errors are the ones reported.
    const fast = mirroredOptions(validatorOptions) && passesValidation(object);
    const errors = fast ? [] : await super.validate(object, validatorOptions);
    const nulls: ValidationError[] = nullFields(object).map((field) => ({
      property: field,
      constraints: { isNotNull: `${field} must not be null` },
      children: [],
    }));
    return [...nulls, ...errors];
  }
}

/**
 * Validates every DTO: unknown fields are refused, types are not coerced silently, `null` is
 * refused unless the field is {@link Nullable}, and the error names the field (400 for a wrong
 * shape, 422 for a value breaking a rule).
 */
export function strictValidationPipe(): ValidationPipe {
  memoiseValidationMetadata();
  return new StrictValidationPipe({
    ...STRICT_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => validationError(flattenValidationErrors(errors)),
  });
}
