export { REGIMES, REGIME_DEFINITIONS, jurisdictionOf, moduleRules, type ComplianceModule, type Regime } from './regimes';
export { GOVERNED_ACTIONS, type GovernedAction } from './governance';
export { checkFlowAgainstModules } from './rules/check-flow';
export type { FlowTermsUnderCheck, RuleViolation } from './rules/rule';
