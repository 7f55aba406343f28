import type { FlowRuleCheck } from './rule';

/**
 * Sensitive purposes (GDPR Art. 9(2)(a), CPRA § 1798.121, LGPD Art. 11, PIPL Art. 29): a purpose
 * over a sensitive category rests on explicit consent (`mechanism: consent`), and that consent is
 * separate and freely given, so the purpose is never `required` (bundled into the service).
 */
export const sensitivePurposes: FlowRuleCheck = (terms, rules) => {
  const violations: ReturnType<FlowRuleCheck> = [];
  terms.purposes.forEach((purpose, index) => {
    if (!rules.sensitive_purposes.includes(purpose.key)) return;
    if (purpose.mechanism !== 'consent') {
      violations.push({
        field: `purposes[${index}].mechanism`,
        message: `Purpose ${purpose.key} is sensitive: it needs explicit consent (mechanism consent)`,
      });
    } else if (purpose.required) {
      violations.push({
        field: `purposes[${index}].required`,
        message: `Purpose ${purpose.key} is sensitive: its consent must be separate, not required`,
      });
    }
  });
  return violations;
};
