import { authority, context } from '../../../test/cascade-fixtures';
import { BOUNDS_INVALID, CASCADE_STEPS, type CascadeReason } from './cascade';
import { authorityOf, deny, matchesName, pass } from './cascade-step';

describe('matchesName (scope and action patterns of steps 4, 5, 6 and 10)', () => {
  it('matches an exact entry only as the whole name', () => {
    expect(matchesName('pay', 'pay')).toBe(true);
    expect(matchesName('pay', 'payout')).toBe(false);
    expect(matchesName('payout', 'pay')).toBe(false);
    expect(matchesName('payments:write', 'payments:read')).toBe(false);
  });

  it('matches `<prefix>:*` against names under that prefix, and nothing else', () => {
    expect(matchesName('payments:*', 'payments:write')).toBe(true);
    expect(matchesName('payments:*', 'payments:refund:partial')).toBe(true);
    expect(matchesName('payments:*', 'profile:write')).toBe(false);
    expect(matchesName('payments:*', 'payments')).toBe(false);
    expect(matchesName('payments:*', 'paymentsX:write')).toBe(false);
    expect(matchesName('payments:*', 'x:payments:write')).toBe(false);
  });

  it('treats only a trailing `:*` as a wildcard, and never a wildcard in the requested name', () => {
    expect(matchesName('pay*', 'payout')).toBe(false);
    expect(matchesName('*', 'pay')).toBe(false);
    expect(matchesName('payments:write', 'payments:*')).toBe(false);
    expect(matchesName('payments:*', 'payments:*')).toBe(true);
  });
});

describe('cascade step helpers', () => {
  it('pass and deny build the verdicts the cascade reads', () => {
    expect(pass).toEqual({ outcome: 'pass' });
    expect(deny('r', 'm')).toEqual({ outcome: 'deny', reason: 'r', message: 'm' });
  });

  it('authorityOf refuses to run a step before step 3 established the authority', () => {
    expect(() => authorityOf(context({}, { authority: undefined }))).toThrow(
      'cascade step ran without an authority; step 3 must run first',
    );
    const present = authority({});
    expect(authorityOf(context({}, { authority: present }))).toBe(present);
  });

  it('names every step as the spec cascade table does', () => {
    expect(CASCADE_STEPS.map((s) => s.name)).toEqual([
      'grant_active',
      'scope_allowed',
      'action_allowed',
      'action_not_prohibited',
      'value_bounds',
      'time_window',
      'reputation_threshold',
      'escalation_bounds',
      'purpose_compatible',
      'max_actions',
      'sequence_bounds',
      'continuation_depth',
      'drift_detection',
    ]);
  });
});

describe('typed cascade reasons', () => {
  const declared = CASCADE_STEPS.flatMap((step) => step.reasons.map((reason) => ({ step: step.step, reason })));

  it('every step declares its reason codes, snake_case, each naming exactly one step', () => {
    for (const step of CASCADE_STEPS) expect({ step: step.step, count: step.reasons.length > 0 }).toEqual({ step: step.step, count: true });
    for (const { reason } of declared) expect(reason).toMatch(/^[a-z]+(_[a-z]+)*$/);
    const steps = new Map<string, number[]>();
    for (const { step, reason } of declared) steps.set(reason, [...(steps.get(reason) ?? []), step]);
    expect([...steps].filter(([, at]) => at.length > 1)).toEqual([]);
    expect(steps.has(BOUNDS_INVALID)).toBe(false);
  });

  it('a reason code a client matches on is part of the CascadeReason type', () => {
    const published: CascadeReason[] = [
      'authority_not_found',
      'value_exceeds_per_action',
      'escalation_required',
      'capability_drift',
      BOUNDS_INVALID,
    ];
    expect(published.filter((code) => code !== BOUNDS_INVALID).every((code) => declared.some((d) => d.reason === code))).toBe(true);
  });
});
