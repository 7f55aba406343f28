import { DomainError } from '@svc/errors';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowTerms } from '../flows/flow';
import type { PurposeDecision } from '../records/record';
import { decisionProblems } from '../records/record-decisions';
import type { PurposeMapping, SubjectMapping } from './form-integration';
import type { DeliveredAnswer, FormDelivery } from './typeform-delivery';

/** Typeform field types answered with a boolean: a yes/no question, and the legal (accept/decline) question. */
const BOOLEAN_FIELD_TYPES: readonly string[] = ['yes_no', 'legal'];
/** A choice field works as one checkbox only when it offers a single choice: chosen = granted. */
const CHOICE_FIELD_TYPE = 'multiple_choice';

type FieldReason = 'field_cannot_carry_decision' | 'required_field_mapped_to_consent' | 'consent_purpose_default_checked';

/** One refusal by name: the reason code, the purpose key and, where a field is at fault, its ref. */
export interface MappingProblem {
  reason_code: FieldReason | ReturnType<typeof decisionProblems>[number]['reason_code'];
  purpose: string;
  field_ref?: string;
}

const MESSAGES: Record<MappingProblem['reason_code'], (p: MappingProblem) => string> = {
  field_cannot_carry_decision: (p) =>
    `purpose "${p.purpose}" is mapped to field "${p.field_ref}", which cannot carry a yes/no decision (only yes_no, legal or a single-choice multiple_choice can)`,
  required_field_mapped_to_consent: (p) =>
    `consent purpose "${p.purpose}" is mapped to required field "${p.field_ref}"; consent cannot be a condition of the form`,
  consent_purpose_default_checked: (p) =>
    `consent purpose "${p.purpose}" is mapped to a field that is answered by default; consent must be an affirmative act`,
  purpose_not_in_flow: (p) => `purpose "${p.purpose}" is not a purpose of the flow's active version`,
  consent_purpose_missing: (p) => `consent purpose "${p.purpose}" has no field carrying its decision`,
  consent_purpose_mandatory: (p) => `consent purpose "${p.purpose}" was mandatory; consent cannot be a condition of the form`,
};

/** Throws the first problem as its named 422 (detail.purpose, detail.field_ref), listing all in detail.problems. */
function assertNoProblems(problems: MappingProblem[]): void {
  const first = problems[0];
  if (first)
    throw consentRecordsError(first.reason_code, MESSAGES[first.reason_code](first), {
      purpose: first.purpose,
      ...(first.field_ref ? { field_ref: first.field_ref } : {}),
      problems,
    });
}

function canCarryDecision(type: string, choiceCount: number | null): boolean {
  if (BOOLEAN_FIELD_TYPES.includes(type)) return true;
  // At creation the choices are not known yet (null); each delivery's definition shows them.
  return type === CHOICE_FIELD_TYPE && (choiceCount === null || choiceCount === 1);
}

function fieldProblems(
  terms: Pick<FlowTerms, 'purposes'>,
  mapping: PurposeMapping,
  type: string,
  choiceCount: number | null,
  required: boolean,
): MappingProblem[] {
  const consent = terms.purposes.find((p) => p.key === mapping.purpose)?.mechanism === 'consent';
  const at = { purpose: mapping.purpose, field_ref: mapping.field_ref };
  if (!canCarryDecision(type, choiceCount)) return [{ reason_code: 'field_cannot_carry_decision', ...at }];
  if (consent && required) return [{ reason_code: 'required_field_mapped_to_consent', ...at }];
  if (consent && mapping.default_checked) return [{ reason_code: 'consent_purpose_default_checked', ...at }];
  return [];
}

/**
 * Spec, Other rules: refusals by name, at creation. Field problems first (a field that cannot
 * carry a decision, a required field or a pre-answered one mapped to consent), then the flow's
 * (a purpose the flow does not resolve, a consent purpose without a field).
 */
export function assertMappingAcceptable(
  terms: Pick<FlowTerms, 'purposes'>,
  purposes: readonly PurposeMapping[],
  subject: SubjectMapping,
): void {
  const seenPurposes = new Set<string>();
  const seenRefs = new Set<string>([subject.email_field_ref, ...(subject.external_id_field_ref ? [subject.external_id_field_ref] : [])]);
  for (const mapping of purposes) {
    if (seenPurposes.has(mapping.purpose))
      throw new DomainError('unprocessable', 'validation_failed', `purpose "${mapping.purpose}" is mapped twice`, {
        field: 'purposes',
        purpose: mapping.purpose,
      });
    if (seenRefs.has(mapping.field_ref))
      throw new DomainError('unprocessable', 'validation_failed', `field "${mapping.field_ref}" is mapped twice`, {
        field: 'purposes',
        field_ref: mapping.field_ref,
      });
    seenPurposes.add(mapping.purpose);
    seenRefs.add(mapping.field_ref);
  }
  const problems = purposes.flatMap((m) => fieldProblems(terms, m, m.field_type, null, m.required));
  const placeholder: Record<string, PurposeDecision> = Object.fromEntries(
    purposes.map((m) => [m.purpose, { decision: 'declined', default_checked: false, mandatory: false }]),
  );
  assertNoProblems([...problems, ...decisionProblems(terms, placeholder)]);
}

function decisionOf(mapping: PurposeMapping, type: string, answer: DeliveredAnswer | undefined): PurposeDecision['decision'] {
  // An unanswered (skipped) question is no affirmative act: declined.
  if (answer === undefined) return 'declined';
  if (BOOLEAN_FIELD_TYPES.includes(type) && answer.type === 'boolean' && typeof answer.boolean === 'boolean')
    return answer.boolean ? 'granted' : 'declined';
  if (type === CHOICE_FIELD_TYPE && answer.type === 'choice') return 'granted';
  if (type === CHOICE_FIELD_TYPE && answer.type === 'choices') return 'granted';
  throw consentRecordsError('form_payload_invalid', `The answer to field "${mapping.field_ref}" is not a ${type} answer`, {
    field: 'form_response.answers',
    field_ref: mapping.field_ref,
  });
}

/**
 * The decisions a delivery carries, refused by name like at creation — now against the form as
 * delivered (its field types and choices, `validations.required` when present) and the flow's
 * active version (which may have changed since the integration was created).
 */
export function decisionsFromDelivery(
  terms: Pick<FlowTerms, 'purposes'>,
  purposes: readonly PurposeMapping[],
  delivery: FormDelivery,
): Record<string, PurposeDecision> {
  const problems: MappingProblem[] = [];
  const decisions: Record<string, PurposeDecision> = {};
  for (const mapping of purposes) {
    const field = delivery.fields.get(mapping.field_ref);
    // A field no longer in the form carries nothing; a consent purpose then has no decision.
    if (!field) continue;
    const required = field.required === true || mapping.required;
    const found = fieldProblems(terms, mapping, field.type, field.type === CHOICE_FIELD_TYPE ? field.choiceCount : null, required);
    problems.push(...found);
    if (found.length > 0) continue;
    decisions[mapping.purpose] = {
      decision: decisionOf(mapping, field.type, delivery.answers.get(mapping.field_ref)),
      default_checked: mapping.default_checked,
      mandatory: required,
    };
  }
  assertNoProblems([...problems, ...decisionProblems(terms, decisions).filter((p) => !problems.some((f) => f.purpose === p.purpose))]);
  return decisions;
}
