import { DomainError } from '@svc/errors';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowTerms } from '../flows/flow';
import type { PurposeDecision } from './record';

const PURPOSE_KEY = /^[a-z][a-z0-9_]{0,63}$/;
const ENTRY_FIELDS = new Set(['decision', 'default_checked', 'mandatory']);

/**
 * Parses the `decisions` object (keyed by purpose key). A wrong shape is a 400 naming the field
 * (`decisions.<key>.<field>`), a value outside the enumeration a 422, like the DTO pipe answers.
 * `default_checked` and `mandatory` default to false.
 */
export function parseDecisions(raw: unknown): Record<string, PurposeDecision> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid('decisions', 'decisions must be an object keyed by purpose key');
  const entries = Object.entries(raw as Record<string, unknown>);
  if (entries.length === 0)
    throw new DomainError('unprocessable', 'validation_failed', 'decisions must hold at least one purpose', { field: 'decisions' });
  if (entries.length > 100)
    throw new DomainError('unprocessable', 'validation_failed', 'decisions holds more than 100 purposes', { field: 'decisions' });
  const result: Record<string, PurposeDecision> = {};
  for (const [key, value] of entries) {
    const field = `decisions.${key}`;
    if (!PURPOSE_KEY.test(key))
      throw new DomainError('unprocessable', 'validation_failed', `${field}: purpose keys are lowercase letters, digits and underscores`, {
        field,
      });
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(field, `${field} must be an object`);
    const entry = value as Record<string, unknown>;
    const unknown = Object.keys(entry).find((k) => !ENTRY_FIELDS.has(k));
    if (unknown !== undefined) throw invalid(`${field}.${unknown}`, `${field}.${unknown} is not a known field`);
    if (entry.decision === undefined) throw invalid(`${field}.decision`, `${field}.decision is required`);
    if (typeof entry.decision !== 'string') throw invalid(`${field}.decision`, `${field}.decision must be a string`);
    if (entry.decision !== 'granted' && entry.decision !== 'declined') {
      throw new DomainError('unprocessable', 'validation_failed', `${field}.decision must be granted or declined`, {
        field: `${field}.decision`,
      });
    }
    for (const flag of ['default_checked', 'mandatory'] as const) {
      if (entry[flag] !== undefined && typeof entry[flag] !== 'boolean')
        throw invalid(`${field}.${flag}`, `${field}.${flag} must be a boolean`);
    }
    result[key] = { decision: entry.decision, default_checked: entry.default_checked === true, mandatory: entry.mandatory === true };
  }
  return result;
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('invalid', 'invalid_request', message, { field });
}

/** One refusal by name: the reason code and the purpose key it names. */
export interface DecisionProblem {
  reason_code: 'purpose_not_in_flow' | 'consent_purpose_missing' | 'consent_purpose_default_checked' | 'consent_purpose_mandatory';
  purpose: string;
}

/**
 * Spec, Other rules: refusals by name. Every problem is listed; the first one gives the reason
 * code, and `detail.purpose` names its purpose key. A consent that was pre-ticked or a condition
 * of the form is not freely given, so it is refused rather than recorded.
 */
export function decisionProblems(terms: Pick<FlowTerms, 'purposes'>, decisions: Record<string, PurposeDecision>): DecisionProblem[] {
  const problems: DecisionProblem[] = [];
  const byKey = new Map(terms.purposes.map((p) => [p.key, p]));
  for (const key of Object.keys(decisions)) if (!byKey.has(key)) problems.push({ reason_code: 'purpose_not_in_flow', purpose: key });
  for (const purpose of terms.purposes) {
    if (purpose.mechanism !== 'consent') continue;
    const decision = decisions[purpose.key];
    if (!decision) problems.push({ reason_code: 'consent_purpose_missing', purpose: purpose.key });
    else if (decision.default_checked) problems.push({ reason_code: 'consent_purpose_default_checked', purpose: purpose.key });
    else if (decision.mandatory) problems.push({ reason_code: 'consent_purpose_mandatory', purpose: purpose.key });
  }
  return problems;
}

const MESSAGES: Record<DecisionProblem['reason_code'], (key: string) => string> = {
  purpose_not_in_flow: (k) => `purpose "${k}" is not a purpose of the flow's active version`,
  consent_purpose_missing: (k) => `consent purpose "${k}" has no decision`,
  consent_purpose_default_checked: (k) => `consent purpose "${k}" was ticked by default; consent must be an affirmative act`,
  consent_purpose_mandatory: (k) => `consent purpose "${k}" was mandatory; consent cannot be a condition of the form`,
};

/** Throws the first problem as its named 422, listing all of them in detail.problems. */
export function assertDecisionsAcceptable(terms: Pick<FlowTerms, 'purposes'>, decisions: Record<string, PurposeDecision>): void {
  const problems = decisionProblems(terms, decisions);
  const first = problems[0];
  if (first) throw consentRecordsError(first.reason_code, MESSAGES[first.reason_code](first.purpose), { purpose: first.purpose, problems });
}
