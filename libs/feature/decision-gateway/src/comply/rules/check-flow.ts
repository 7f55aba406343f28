import { REGIME_DEFINITIONS, type ComplianceModule } from '../regimes';
import { minimumAge } from './minimum-age.rule';
import { retentionCeiling } from './retention-ceiling.rule';
import type { FlowRuleCheck, FlowTermsUnderCheck, ModuleRule, RuleViolation } from './rule';
import { sensitivePurposes } from './sensitive-purposes.rule';
import { withdrawalParity } from './withdrawal-parity.rule';

/** Every rule a module enforces, in the order refusals name them. */
const RULE_CHECKS: ReadonlyArray<readonly [ModuleRule, FlowRuleCheck]> = [
  ['withdrawal_parity', withdrawalParity],
  ['minimum_age', minimumAge],
  ['retention_ceiling', retentionCeiling],
  ['sensitive_purposes', sensitivePurposes],
];

/**
 * Checks a flow version against every enabled module of its application, when the flow is
 * activated: each violation names the regime, the rule, the flow field and the law's article.
 * No enabled module: nothing to check (the application declared no regime).
 */
export function checkFlowAgainstModules(terms: FlowTermsUnderCheck, modules: readonly ComplianceModule[]): RuleViolation[] {
  const violations: RuleViolation[] = [];
  for (const module of modules) {
    if (!module.enabled) continue;
    for (const [rule, check] of RULE_CHECKS) {
      for (const found of check(terms, module.rules)) {
        violations.push({
          regime: module.regime,
          rule,
          field: found.field,
          message: found.message,
          citation: REGIME_DEFINITIONS[module.regime].citations[rule],
        });
      }
    }
  }
  return violations;
}
