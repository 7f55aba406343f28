import type { FlowRuleCheck } from './rule';

/**
 * Withdrawal as easy as consent (GDPR Art. 7(3) and its peers): a flow whose purposes rest on
 * consent must let the person withdraw at any time through the same kind of channel, so its
 * `revocation_policy` is `any_time`; "contact the controller" puts a step between the person and
 * the withdrawal that consenting did not have.
 */
export const withdrawalParity: FlowRuleCheck = (terms) => {
  if (!terms.purposes.some((purpose) => purpose.mechanism === 'consent')) return [];
  if (terms.revocation_policy === 'any_time') return [];
  return [{ field: 'revocation_policy', message: 'Withdrawal must be as easy as consent: revocation_policy must be any_time' }];
};
