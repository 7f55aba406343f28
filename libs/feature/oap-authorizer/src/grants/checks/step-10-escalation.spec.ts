import { PASS, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { EscalationBounds } from '../../authorities/bounds';
import type { GrantRequest } from './cascade-step';
import { escalationTriggers, step10Escalation } from './step-10-escalation';

const ESCALATE = { outcome: 'escalate', reason: 'escalation_required' };
const bounds = (trigger: Partial<EscalationBounds>, approvers = ['user_1', 'user_2']): EscalationBounds => ({
  quorum_type: 'all',
  approvers,
  ...trigger,
});
const verdict = (escalation: EscalationBounds | undefined, overrides: Partial<GrantRequest> = {}) =>
  run(step10Escalation, context(escalation ? { escalation_bounds: escalation } : {}, { request: request(overrides) }));

describe('step 10 — escalation bounds', () => {
  it('never triggers without escalation bounds', () => {
    expect(verdict(undefined, { value: { amount: '1000000', currency: 'EUR' } })).toEqual(PASS);
  });

  it('escalates every request under always, and none when nothing triggers', () => {
    expect(verdict(bounds({ always: true }))).toEqual(ESCALATE);
    expect(verdict(bounds({ always: false }))).toEqual(PASS);
    expect(verdict(bounds({}))).toEqual(PASS);
  });

  describe('amount_over', () => {
    it('escalates only above the amount', () => {
      expect(verdict(bounds({ amount_over: '80' }), { value: { amount: '80.00', currency: 'EUR' } })).toEqual(PASS);
      expect(verdict(bounds({ amount_over: '80' }), { value: { amount: '80.01', currency: 'EUR' } })).toEqual(ESCALATE);
    });
    it('does not trigger for a request without a value', () => {
      expect(verdict(bounds({ amount_over: '0' }))).toEqual(PASS);
    });
  });

  describe('actions', () => {
    const trigger = bounds({ actions: ['refund', 'wire:*'] });
    it('escalates when any requested action matches any listed action', () => {
      expect(verdict(trigger, { actions: ['pay', 'wire:out'] })).toEqual(ESCALATE);
      expect(verdict(trigger, { actions: ['refund', 'pay'] })).toEqual(ESCALATE);
    });
    it('does not trigger for other actions', () => {
      expect(verdict(trigger, { actions: ['pay', 'refunds'] })).toEqual(PASS);
    });
  });

  describe('scopes', () => {
    const trigger = bounds({ scopes: ['profile:write', 'payments:admin'] });
    it('escalates when any requested scope matches any listed scope', () => {
      expect(verdict(trigger, { scopes: ['payments:write', 'payments:admin'] })).toEqual(ESCALATE);
      expect(verdict(trigger, { scopes: ['profile:write', 'payments:write'] })).toEqual(ESCALATE);
    });
    it('does not trigger for other scopes', () => {
      expect(verdict(trigger, { scopes: ['payments:write', 'profile:read'] })).toEqual(PASS);
    });
  });

  it('denies a triggered escalation with no approver, and passes an untriggered one', () => {
    expect(verdict(bounds({ actions: ['refund'] }, []), { actions: ['refund'] })).toEqual(
      denied('escalation_without_approvers', 'The request needs approval but the authority names no approver'),
    );
    expect(verdict(bounds({ actions: ['refund'] }, []), { actions: ['pay'] })).toEqual(PASS);
    expect(verdict(bounds({ always: true }, ['user_1']))).toEqual(ESCALATE);
  });
});

describe('escalationTriggers (what the principal is shown)', () => {
  it('lists every trigger the request hits, in bound order, with what matched', () => {
    const all = bounds({ always: true, amount_over: '80', actions: ['refund', 'wire:*'], scopes: ['payments:admin', 'profile:*'] });
    expect(
      escalationTriggers(all, {
        value: { amount: '90.50', currency: 'EUR' },
        actions: ['pay', 'wire:out', 'refund'],
        scopes: ['profile:read', 'payments:write'],
      }),
    ).toEqual([
      { bound: 'always' },
      { bound: 'amount_over', limit: '80', amount: '90.50', currency: 'EUR' },
      { bound: 'actions', matched: ['wire:out', 'refund'] },
      { bound: 'scopes', matched: ['profile:read'] },
    ]);
  });

  it('lists nothing for a request inside every trigger, or without escalation lists', () => {
    const all = bounds({ always: false, amount_over: '80', actions: ['refund'], scopes: ['payments:admin'] });
    expect(escalationTriggers(all, { value: { amount: '80', currency: 'EUR' }, actions: ['pay'], scopes: ['payments:write'] })).toEqual([]);
    expect(escalationTriggers(bounds({ amount_over: '80' }), { actions: ['pay'], scopes: ['payments:write'] })).toEqual([]);
    expect(
      escalationTriggers(bounds({}), { value: { amount: '1', currency: 'EUR' }, actions: ['pay'], scopes: ['payments:write'] }),
    ).toEqual([]);
  });
});
