import type { ModuleRules, Regime } from '../regimes';

/** What a flow version declares, as the module rules read it (consent-records sends it on activation). */
export interface FlowTermsUnderCheck {
  readonly purposes: ReadonlyArray<{ readonly key: string; readonly mechanism: string; readonly required: boolean }>;
  readonly data_fields: ReadonlyArray<{ readonly key: string; readonly required: boolean }>;
  readonly retention_period: string | null;
  readonly revocation_policy: string;
  readonly requirements: readonly string[];
}

export const MODULE_RULES = ['withdrawal_parity', 'minimum_age', 'retention_ceiling', 'sensitive_purposes'] as const;
export type ModuleRule = (typeof MODULE_RULES)[number];

/** One broken rule: the rule, the regime that enforces it and the flow field at fault. */
export interface RuleViolation {
  readonly regime: Regime;
  readonly rule: ModuleRule;
  /** The flow field at fault, as the flow API names it (`purposes[2].mechanism`). */
  readonly field: string;
  readonly message: string;
  readonly citation: string;
}

/** A rule of a module: answers the violations of one flow version, none when it complies. */
export type FlowRuleCheck = (terms: FlowTermsUnderCheck, rules: ModuleRules) => Array<Omit<RuleViolation, 'regime' | 'citation' | 'rule'>>;
