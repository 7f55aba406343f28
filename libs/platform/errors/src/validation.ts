import type { ValidationError } from 'class-validator';
import { DomainError } from './domain-error';

/** Constraints that mean the request's shape is wrong (400) rather than a value failing a rule (422). */
const STRUCTURAL_CONSTRAINTS = new Set([
  'whitelistValidation',
  'isDefined',
  'isString',
  'isNumber',
  'isInt',
  'isBoolean',
  'isObject',
  'isArray',
  'nestedValidation',
  'unknownValue',
  'isNotNull',
  'isWellFormedString',
]);

export interface FieldProblem {
  field: string;
  constraint: string;
  message: string;
}

/** Flattens class-validator errors into dotted field paths. */
export function flattenValidationErrors(errors: readonly ValidationError[], parent = ''): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      const text = constraint === 'whitelistValidation' ? `${field} is not a known field` : message.replace(error.property, field);
      problems.push({ field, constraint, message: text });
    }
    if (error.children?.length) problems.push(...flattenValidationErrors(error.children, field));
  }
  return problems;
}

/** Converts validation problems into the envelope's 400 (shape) or 422 (rule) error, naming fields. */
export function validationError(problems: readonly FieldProblem[]): DomainError {
  const first = problems[0];
  if (!first) return new DomainError('invalid', 'invalid_request', 'Request body is invalid');
  const structural = problems.some((p) => STRUCTURAL_CONSTRAINTS.has(p.constraint));
  const fields = [...new Set(problems.map((p) => p.field))];
  const detail = { field: first.field, fields, errors: problems.map(({ field, message }) => ({ field, message })) };
  return structural
    ? new DomainError('invalid', 'invalid_request', first.message, detail)
    : new DomainError('unprocessable', 'validation_failed', first.message, detail);
}
