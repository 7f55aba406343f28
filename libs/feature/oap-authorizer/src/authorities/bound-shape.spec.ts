import { boundDefect } from './bound-shape';

describe('boundDefect (spec: Authority bounds; absence is never unlimited)', () => {
  it.each([
    ['time_bounds', { hours_utc: [8, 18] }],
    ['time_bounds', { unrestricted: true }],
    ['reputation_bounds', { min_trust_score: 0 }],
    ['oap_sequence_bounds', { max_per_minute: 3 }],
    ['value_bounds', { currency: 'EUR', per_action: '12.50' }],
    ['value_bounds', { currency: 'EUR', per_month: '200.00' }],
    ['value_bounds', { currency: 'EUR', per_action: '50.00', per_month: '200.00', aggregate: '1000' }],
    ['escalation_bounds', { quorum_type: 'all', approvers: ['user_1'] }],
  ] as const)('accepts %s %j', (key, value) => {
    expect(boundDefect(key, value)).toBeUndefined();
  });

  it.each([
    ['time_bounds', {}, 'time_bounds', 'time_bounds must hold at least one constraint or unrestricted: true'],
    ['time_bounds', { unrestricted: false }, 'time_bounds', 'time_bounds must hold at least one constraint or unrestricted: true'],
    [
      'reputation_bounds',
      [],
      'reputation_bounds',
      'reputation_bounds must be an object with at least one constraint or unrestricted: true',
    ],
    [
      'oap_sequence_bounds',
      null,
      'oap_sequence_bounds',
      'oap_sequence_bounds must be an object with at least one constraint or unrestricted: true',
    ],
    [
      'value_bounds',
      { currency: 'EUR', per_action: null },
      'value_bounds.per_action',
      'value_bounds.per_action is not of its declared type',
    ],
    ['value_bounds', { currency: 'EUR', per_month: 200 }, 'value_bounds.per_month', 'value_bounds.per_month is not of its declared type'],
    ['value_bounds', { currency: 'EUR', per_month: '-1' }, 'value_bounds.per_month', 'value_bounds.per_month is not of its declared type'],
    ['value_bounds', { currency: 'EUR', per_month: '1e3' }, 'value_bounds.per_month', 'value_bounds.per_month is not of its declared type'],
    ['value_bounds', { currency: 'EUR', monthly: '200' }, 'value_bounds.monthly', 'value_bounds.monthly is not a known constraint'],
    ['scope_bounds', { allowed: 'payments:*' }, 'scope_bounds.allowed', 'scope_bounds.allowed is not of its declared type'],
    ['time_bounds', { unrestricted: 'yes' }, 'time_bounds.unrestricted', 'time_bounds.unrestricted must be a boolean'],
    ['escalation_bounds', {}, 'escalation_bounds', 'escalation_bounds must hold at least one constraint'],
  ] as const)('refuses %s %j naming %s', (key, value, field, message) => {
    expect(boundDefect(key, value)).toEqual({ field, message });
  });
});
