import { ValidationTypes, getMetadataStorage, type ValidationArguments } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;

/**
 * Whether class-validator would find NO error in `object` under the platform's options (whitelist
 * with forbidNonWhitelisted, forbidUnknownValues, no groups): the same rules, run the same way, but
 * without building error objects, messages and promises for every property. It only ever says
 * "valid" when the full validator would: `false` means "not sure" as well as "invalid", and the
 * caller then runs the full validator, whose errors it reports. A rule whose answer is a promise
 * (an async constraint) always gives `false`.
 *
 * It mirrors class-validator's ValidationExecutor (0.14) step by step: the rules a class has (the
 * same metadata lookup, by class and schema), unknown properties, conditions (`@IsOptional`,
 * `@ValidateIf`), `@IsDefined`, each custom constraint (`each` over arrays, sets and maps), and
 * nested objects (each element of an array, set or map; the nested class's own rules, looked up
 * under its parent's name as the executor does).
 */
export function passesValidation(object: object, storage: MetadataStorage = getMetadataStorage()): boolean {
  return passesObject(object, undefined, storage);
}

/** A constraint rule with its validators, looked up once. */
interface Check {
  rule: ValidationMetadata;
  validators: ReturnType<MetadataStorage['getTargetValidatorConstraints']>;
}

/** What the executor does with one property, prepared once per rule set. */
interface PropertyPlan {
  property: string;
  /** A promise rule, or any rule the plan cannot run: always "not sure". */
  unsupported: boolean;
  conditions: ReadonlyArray<(object: object, value: unknown) => boolean>;
  defined: readonly Check[];
  custom: readonly Check[];
  nested: readonly ValidationMetadata[];
}

interface ClassPlan {
  allowed: ReadonlySet<string>;
  properties: readonly PropertyPlan[];
}

/**
 * Plans by rule set. The (memoised) metadata lookup answers the same array for a class as long as
 * its rules are unchanged and a new one when a rule is added, so a plan never outlives its rules.
 */
const plans = new WeakMap<readonly ValidationMetadata[], ClassPlan>();

function planOf(metadatas: ValidationMetadata[], storage: MetadataStorage): ClassPlan {
  let plan = plans.get(metadatas);
  if (plan) return plan;
  const grouped = storage.groupByPropertyName(metadatas);
  const checks = (rules: readonly ValidationMetadata[]): Check[] =>
    rules.map((rule) => ({ rule, validators: storage.getTargetValidatorConstraints(rule.constraintCls) }));
  plan = {
    allowed: new Set(Object.keys(grouped).filter((key) => grouped[key]!.length > 0)),
    properties: Object.keys(grouped).map((property): PropertyPlan => {
      const rules = grouped[property]!;
      const others = rules.filter((rule) => rule.type !== ValidationTypes.IS_DEFINED && rule.type !== ValidationTypes.WHITELIST);
      return {
        property,
        unsupported: rules.some((rule) => rule.type === ValidationTypes.PROMISE_VALIDATION),
        conditions: others
          .filter((rule) => rule.type === ValidationTypes.CONDITIONAL_VALIDATION)
          .map((rule) => rule.constraints[0] as (object: object, value: unknown) => boolean),
        defined: checks(rules.filter((rule) => rule.type === ValidationTypes.IS_DEFINED)),
        custom: checks(others.filter((rule) => rule.type === ValidationTypes.CUSTOM_VALIDATION)),
        nested: others.filter((rule) => rule.type === ValidationTypes.NESTED_VALIDATION),
      };
    }),
  };
  plans.set(metadatas, plan);
  return plan;
}

function passesObject(object: object, targetSchema: string | undefined, storage: MetadataStorage): boolean {
  const metadatas = storage.getTargetValidationMetadatas(object.constructor, targetSchema as string, false, false);
  // forbidUnknownValues: an object of a class without rules is an error.
  if (metadatas.length === 0) return false;
  const plan = planOf(metadatas, storage);
  // whitelist + forbidNonWhitelisted: a property without any rule is an error.
  for (const key of Object.keys(object)) if (!plan.allowed.has(key)) return false;
  for (const property of plan.properties) {
    const value = (object as Record<string, unknown>)[property.property];
    if (property.unsupported || value instanceof Promise) return false;
    if (!passesProperty(object, value, property, storage)) return false;
  }
  return true;
}

function passesProperty(object: object, value: unknown, plan: PropertyPlan, storage: MetadataStorage): boolean {
  for (const condition of plan.conditions) if (!condition(object, value)) return true;
  if (!passesChecks(object, value, plan.defined) || !passesChecks(object, value, plan.custom)) return false;
  if (value === undefined) return true;
  for (const rule of plan.nested) {
    if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
      // Each element is validated as the executor does: its nested rules only.
      const element: PropertyPlan = { ...NO_RULES, property: plan.property, nested: plan.nested };
      for (const item of arrayOf(value)) if (!passesProperty(value, item, element, storage)) return false;
    } else if (value instanceof Object) {
      if (!passesObject(value, typeof rule.target === 'string' ? rule.target : rule.target.name, storage)) return false;
    } else {
      return false;
    }
  }
  return true;
}

const NO_RULES: PropertyPlan = { property: '', unsupported: false, conditions: [], defined: [], custom: [], nested: [] };

function passesChecks(object: object, value: unknown, checks: readonly Check[]): boolean {
  for (const { rule, validators } of checks) {
    if (rule.validateIf && !rule.validateIf(object, value)) continue;
    const args: ValidationArguments = {
      targetName: object.constructor ? object.constructor.name : '',
      property: rule.propertyName,
      object,
      value,
      constraints: rule.constraints,
    };
    const values = rule.each && (Array.isArray(value) || value instanceof Set || value instanceof Map) ? arrayOf(value) : [value];
    for (const validator of validators) {
      if (validator.async) return false;
      for (const item of values) {
        const valid: unknown = validator.instance.validate(item, args);
        // The executor treats any truthy answer as valid, and a promise as an answer to wait for.
        if (!valid || isPromiseLike(valid)) return false;
      }
    }
  }
  return true;
}

/** class-validator's `convertToArray`: a set's values, a map's values, an array itself. */
function arrayOf(value: unknown[] | Set<unknown> | Map<unknown, unknown>): unknown[] {
  if (value instanceof Map) return [...value.values()];
  return Array.isArray(value) ? value : [...value];
}

function isPromiseLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
