import { durationDays } from './duration';
import type { FlowRuleCheck } from './rule';

/**
 * Retention ceiling (storage limitation, GDPR Art. 5(1)(e) and its peers): the flow declares how
 * long it keeps what it collects, and no longer than the module's ceiling. Durations compare in
 * days (a year is 365, a month 30), the conservative reading for the ceiling.
 */
export const retentionCeiling: FlowRuleCheck = (terms, rules) => {
  if (terms.retention_period === null)
    return [{ field: 'retention_period', message: `A retention period must be declared (at most ${rules.retention_ceiling})` }];
  const declared = durationDays(terms.retention_period);
  const ceiling = durationDays(rules.retention_ceiling);
  if (declared === undefined) return [{ field: 'retention_period', message: 'retention_period is not an ISO 8601 duration' }];
  if (ceiling !== undefined && declared > ceiling) {
    return [
      { field: 'retention_period', message: `retention_period ${terms.retention_period} exceeds the ceiling ${rules.retention_ceiling}` },
    ];
  }
  return [];
};
