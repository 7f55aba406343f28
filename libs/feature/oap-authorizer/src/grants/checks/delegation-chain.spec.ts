import { AGENT, NOW, hop } from '../../../test/cascade-fixtures';
import { delegationChainViolation } from './delegation-chain';

const agent = AGENT.id;
const root = hop('user_1', 'planner', 'planner', '2026-03-04T09:00:00Z', 'payments:write profile:read');
const last = hop('planner', 'agent', agent, '2026-03-04T09:05:00Z', 'payments:write');
const check = (chain: Parameters<typeof delegationChainViolation>[0], scopes: string[] = ['payments:write']) =>
  delegationChainViolation(chain, agent, scopes, NOW);

describe('delegationChainViolation (step 14, delegation chain rules)', () => {
  it('accepts a valid chain, a one-hop chain and an empty one', () => {
    expect(check([root, last])).toBeUndefined();
    expect(check([{ ...root, sub: agent }])).toBeUndefined();
    expect(check([])).toBeUndefined();
  });

  describe('chronology', () => {
    it('accepts a hop dated exactly now, refuses one a millisecond in the future', () => {
      expect(check([root, { ...last, delegated_at: NOW.toISOString() }])).toBeUndefined();
      expect(check([root, { ...last, delegated_at: new Date(NOW.getTime() + 1).toISOString() }])).toBe(
        'hop 1: delegated_at is invalid or in the future',
      );
      expect(check([{ ...root, delegated_at: '2026-03-05T00:00:00Z' }, last])).toBe('hop 0: delegated_at is invalid or in the future');
    });

    it('refuses an unparseable delegated_at', () => {
      expect(check([{ ...root, delegated_at: 'yesterday' }, last])).toBe('hop 0: delegated_at is invalid or in the future');
    });

    it('accepts a hop dated the same instant as the previous one, refuses an earlier one', () => {
      expect(check([root, { ...last, delegated_at: root.delegated_at }])).toBeUndefined();
      expect(check([root, { ...last, delegated_at: '2026-03-04T08:59:59.999Z' }])).toBe(
        'hop 1: delegated_at is earlier than the previous hop',
      );
    });
  });

  it("refuses a hop whose iss is not the previous hop's aud", () => {
    expect(check([root, { ...last, iss: 'someone' }])).toBe("hop 1: iss does not match the previous hop's aud");
  });

  describe('scope reduction', () => {
    it('refuses a hop that adds a scope, even alongside delegated ones', () => {
      expect(check([root, { ...last, scope: 'payments:write mail:send' }])).toBe("hop 1: scope is not a reduction of the previous hop's");
      expect(check([root, { ...last, scope: 'mail:send payments:write' }])).toBe("hop 1: scope is not a reduction of the previous hop's");
    });

    it('accepts the same scopes in another order and with extra spaces', () => {
      expect(check([root, { ...last, scope: 'profile:read  payments:write' }], ['payments:write', 'profile:read'])).toBeUndefined();
    });

    it('refuses requested scopes beyond the last hop, even when one of them was delegated', () => {
      expect(check([root, last], ['payments:write', 'profile:read'])).toBe('requested scopes exceed the last hop');
      expect(check([root, last], ['profile:read', 'payments:write'])).toBe('requested scopes exceed the last hop');
      expect(check([root, last], ['mail:send'])).toBe('requested scopes exceed the last hop');
    });
  });

  it('refuses a chain whose last hop is not the requesting agent', () => {
    expect(check([root, { ...last, sub: 'agent_us_bbbbbbbbbbbbbbbbbbbb' }])).toBe('last hop: sub is not the requesting agent');
    expect(check([root])).toBe('last hop: sub is not the requesting agent');
  });

  it('reports the first violation in chain order', () => {
    const future = { ...last, delegated_at: '2026-03-05T00:00:00Z', iss: 'someone' };
    expect(check([root, future])).toBe('hop 1: delegated_at is invalid or in the future');
  });
});
