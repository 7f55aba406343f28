import { BOUND_KEYS, type AuthorityBounds } from './bounds';
import { CreateAuthorityCommand } from './use-cases/create-authority.use-case';

/** One of each bound; the type makes a bound added to AuthorityBounds fail to compile here. */
const EVERY_BOUND: Required<AuthorityBounds> = {
  scope_bounds: { allowed: ['payments:*'] },
  action_bounds: { allowed: ['pay'] },
  value_bounds: { currency: 'EUR', per_action: '10' },
  time_bounds: { hours_utc: [8, 18] },
  escalation_bounds: { quorum_type: 'all', approvers: ['user_1'], always: true },
  reputation_bounds: { min_trust_score: 10 },
  oap_sequence_bounds: { max_continuation_depth: 2 },
  jurisdiction_bounds: { allowed: ['FR'] },
};

describe('authority bound keys', () => {
  it('lists the eight bounds of the spec, in its order', () => {
    expect(BOUND_KEYS).toEqual([
      'scope_bounds',
      'action_bounds',
      'value_bounds',
      'time_bounds',
      'escalation_bounds',
      'reputation_bounds',
      'oap_sequence_bounds',
      'jurisdiction_bounds',
    ]);
  });

  it('names every field of AuthorityBounds exactly once', () => {
    expect([...BOUND_KEYS].sort()).toEqual(Object.keys(EVERY_BOUND).sort());
    expect(new Set(BOUND_KEYS).size).toBe(BOUND_KEYS.length);
  });

  it('keeps every bound of a new authority request, so none is silently dropped', () => {
    const command = CreateAuthorityCommand.create({
      agentId: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
      principalId: 'user_1',
      bounds: EVERY_BOUND,
      validUntil: '2026-04-01T00:00:00Z',
    });
    expect(command.bounds).toEqual(EVERY_BOUND);
  });

  it('keeps only the bounds a request sets', () => {
    const command = CreateAuthorityCommand.create({
      agentId: 'agent_us_aaaaaaaaaaaaaaaaaaaa',
      principalId: 'user_1',
      bounds: { scope_bounds: { unrestricted: true } },
      validUntil: '2026-04-01T00:00:00Z',
    });
    expect(command.bounds).toEqual({ scope_bounds: { unrestricted: true } });
    expect(Object.keys(command.bounds)).toEqual(['scope_bounds']);
  });
});
