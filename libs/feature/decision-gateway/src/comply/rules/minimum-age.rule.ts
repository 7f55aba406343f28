import type { FlowRuleCheck } from './rule';

/** Required data fields that state the person's age (a date of birth, or a confirmation of the minimum). */
export const AGE_FIELDS = ['date_of_birth', 'age_confirmation'] as const;

/**
 * Minimum age (GDPR Art. 8 and its peers): a person below the module's age cannot consent alone,
 * so a flow asking for consent must establish age before it counts: a required `date_of_birth` or
 * `age_confirmation` data field, or the `identity_verification` requirement (which proves it).
 */
export const minimumAge: FlowRuleCheck = (terms, rules) => {
  if (!terms.purposes.some((purpose) => purpose.mechanism === 'consent')) return [];
  if (terms.requirements.includes('identity_verification')) return [];
  if (terms.data_fields.some((field) => field.required && (AGE_FIELDS as readonly string[]).includes(field.key))) return [];
  return [
    {
      field: 'data_fields',
      message: `Consent counts only from age ${rules.minimum_age}: add a required ${AGE_FIELDS.join(' or ')} data field, or the identity_verification requirement`,
    },
  ];
};
