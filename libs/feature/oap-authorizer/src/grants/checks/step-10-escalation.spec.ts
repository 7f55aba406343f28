import { PASS, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { EscalationBounds } from '../../authorities/bounds';
import type { GrantRequest } from './cascade-step';
import { step10Escalation } from './step-10-escalation';

const ESCALATE = { outcome: 'escalate', reason: 'escalation_required' };
const bounds = (trigger: Partial<EscalationBounds>, approvers = ['user_1', 'user_2']): EscalationBounds => ({ quorum_type: 'all', approvers, ...trigger });
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
