import { AGENT, NOW, authority as fixtureAuthority, request as fixtureRequest } from '../../../test/cascade-fixtures';
import type { Authority } from '../../authorities/authority';
import type { AuthorityBounds } from '../../authorities/bounds';
import { CASCADE_STEPS, runCascade } from './cascade';
import type { CascadeContext, DelegationHop, GrantHistory, GrantRequest } from './cascade-step';

const FULL_BOUNDS: AuthorityBounds = {
  scope_bounds: { allowed: ['payments:*', 'profile:read'], denied: ['payments:admin'] },
  action_bounds: { allowed: ['pay', 'refund', 'quote'], prohibited: ['delete'], max_actions: 10 },
  value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '250' },
  time_bounds: { hours_utc: [8, 18], days: [1, 2, 3, 4, 5], buckets: [{ period: 'hour', max: 5 }] },
  reputation_bounds: { min_trust_score: 50, min_vouch_count: 2 },
  oap_sequence_bounds: { max_per_minute: 3, max_repetitions: 2, ordering: ['quote', 'pay'], max_continuation_depth: 2 },
  jurisdiction_bounds: { allowed: ['FR', 'DE'] },
  escalation_bounds: { amount_over: '80', quorum_type: 'all', approvers: ['user_1'] },
};

/** The fixture authority with the full bounds above unless a test names others. */
function authority(overrides: Partial<Authority> = {}, bounds: AuthorityBounds = FULL_BOUNDS): Authority {
  return fixtureAuthority(bounds, overrides);
}

const EMPTY_HISTORY: GrantHistory = {
  total: 0,
  lastMinute: 0,
  buckets: { minute: 0, hour: 0, day: 0 },
  aggregate: '0',
  month: '0',
  recentActions: [],
  grantedActions: new Set(['quote']),
};

function request(overrides: Partial<GrantRequest> = {}): GrantRequest {
  return fixtureRequest({ value: { amount: '25.50', currency: 'EUR' }, ...overrides });
}

function context(overrides: Partial<CascadeContext> = {}): CascadeContext {
  return {
    now: NOW,
    request: request(),
    authority: authority(),
    agent: AGENT,
    currentManifestSha256: 'm1',
    history: EMPTY_HISTORY,
    ...overrides,
  };
}

function denial(ctx: CascadeContext): { step: number; category: string; reason: string } | undefined {
  const result = runCascade(ctx);
  return result.decision === 'deny' ? { step: result.step, category: result.category, reason: result.reason } : undefined;
}

const hop = (iss: string, aud: string, sub: string, at: string, scope: string): DelegationHop => ({
  iss,
  aud,
  sub,
  delegated_at: at,
  scope,
  purpose: 'shopping',
  jti: `${iss}-${at}`,
});

describe('OAP 15-step cascade (spec: Cascade denial categories)', () => {
  it('orders steps 3 to 15 with their spec categories', () => {
    expect(CASCADE_STEPS.map((s) => [s.step, s.category])).toEqual([
      [3, 'authorization_denied'],
      [4, 'authorization_denied'],
      [5, 'authorization_denied'],
      [6, 'action_not_prohibited'],
      [7, 'intent_denied'],
      [8, 'intent_denied'],
      [9, 'intent_denied'],
      [10, 'intent_denied'],
      [11, 'intent_denied'],
      [12, 'max_actions'],
      [13, 'trajectory_denied'],
      [14, 'trajectory_denied'],
      [15, 'trajectory_denied'],
    ]);
  });

  it('allows a request inside every bound', () => {
    expect(runCascade(context())).toEqual({ decision: 'allow' });
  });

  describe('step 3 — grant exists and active (authorization_denied)', () => {
    it.each([
      ['no authority', { authority: undefined }, 'authority_not_found'],
      ['suspended', { authority: authority({ status: 'suspended' }) }, 'authority_suspended'],
      ['revoked', { authority: authority({ status: 'revoked' }) }, 'authority_revoked'],
      ['expired', { authority: authority({ validUntil: new Date('2026-03-04T10:00:00Z') }) }, 'authority_expired'],
      ['cooling off', { authority: authority({ coolingOffSeconds: 7 * 24 * 3600 }) }, 'authority_cooling_off'],
      ['beyond the authority', { request: request({ validUntil: new Date('2026-05-01T00:00:00Z') }) }, 'grant_validity_exceeds_authority'],
      ['suspended agent', { agent: { ...AGENT, status: 'suspended' as const } }, 'agent_suspended'],
    ])('denies %s', (_name, overrides, reason) => {
      expect(denial(context(overrides as Partial<CascadeContext>))).toEqual({ step: 3, category: 'authorization_denied', reason });
    });
  });

  describe('step 4 — scope allowed (authorization_denied)', () => {
    it('denies a scope outside the allowed list, a denied scope, and absent scope bounds', () => {
      expect(denial(context({ request: request({ scopes: ['mail:send'] }) }))).toMatchObject({ step: 4, reason: 'scope_not_allowed' });
      expect(denial(context({ request: request({ scopes: ['payments:admin'] }) }))).toMatchObject({ step: 4, reason: 'scope_denied' });
      const { scope_bounds: _s, ...rest } = FULL_BOUNDS;
      expect(denial(context({ authority: authority({}, rest) }))).toMatchObject({
        step: 4,
        category: 'authorization_denied',
        reason: 'scope_bounds_not_configured',
      });
    });
  });

  describe('step 5 — action allowed (authorization_denied)', () => {
    it('denies an action outside the allowed list and absent action bounds', () => {
      expect(denial(context({ request: request({ actions: ['transfer'] }) }))).toEqual({
        step: 5,
        category: 'authorization_denied',
        reason: 'action_not_allowed',
      });
      const { action_bounds: _a, ...rest } = FULL_BOUNDS;
      expect(denial(context({ authority: authority({}, rest) }))).toMatchObject({ step: 5, reason: 'action_bounds_not_configured' });
    });
  });

  describe('step 6 — reserved action_not_prohibited', () => {
    it('denies a prohibited action even when actions are unrestricted', () => {
      const bounds = { ...FULL_BOUNDS, action_bounds: { unrestricted: true, prohibited: ['delete'] } };
      expect(denial(context({ authority: authority({}, bounds), request: request({ actions: ['delete'] }) }))).toEqual({
        step: 6,
        category: 'action_not_prohibited',
        reason: 'action_prohibited',
      });
    });
  });

  describe('step 7 — value bounds (intent_denied)', () => {
    it('denies per-action excess, aggregate excess, wrong currency and unconfigured value bounds', () => {
      expect(denial(context({ request: request({ value: { amount: '100.01', currency: 'EUR' } }) }))).toEqual({
        step: 7,
        category: 'intent_denied',
        reason: 'value_exceeds_per_action',
      });
      expect(denial(context({ history: { ...EMPTY_HISTORY, aggregate: '230.00' } }))).toMatchObject({
        step: 7,
        reason: 'value_exceeds_aggregate',
      });
      expect(denial(context({ request: request({ value: { amount: '10', currency: 'USD' } }) }))).toMatchObject({
        step: 7,
        reason: 'currency_mismatch',
      });
      const { value_bounds: _v, ...rest } = FULL_BOUNDS;
      expect(denial(context({ authority: authority({}, rest) }))).toMatchObject({ step: 7, reason: 'value_bounds_not_configured' });
    });

    it('allows exactly the ceiling (decimal comparison, no float rounding)', () => {
      expect(
        runCascade(
          context({ request: request({ value: { amount: '20', currency: 'EUR' } }), history: { ...EMPTY_HISTORY, aggregate: '230.00' } }),
        ),
      ).toEqual({ decision: 'allow' });
    });
  });

  describe('step 8 — time window (intent_denied)', () => {
    it('denies outside hours, on a weekend, when a bucket is full, and without time bounds', () => {
      expect(
        denial(context({ now: new Date('2026-03-04T19:00:00Z'), request: request({ validUntil: new Date('2026-03-04T20:00:00Z') }) })),
      ).toEqual({ step: 8, category: 'intent_denied', reason: 'outside_time_window' });
      expect(
        denial(context({ now: new Date('2026-03-07T10:30:00Z'), request: request({ validUntil: new Date('2026-03-07T11:00:00Z') }) })),
      ).toMatchObject({ step: 8, reason: 'outside_time_window' });
      expect(denial(context({ history: { ...EMPTY_HISTORY, buckets: { minute: 0, hour: 5, day: 5 } } }))).toMatchObject({
        step: 8,
        reason: 'time_bucket_exhausted',
      });
      const { time_bounds: _t, ...rest } = FULL_BOUNDS;
      expect(denial(context({ authority: authority({}, rest) }))).toMatchObject({ step: 8, reason: 'time_bounds_not_configured' });
    });
  });

  describe('step 9 — reputation threshold (intent_denied)', () => {
    it('denies a low trust score or too few vouches', () => {
      expect(denial(context({ agent: { ...AGENT, trustScore: 10 } }))).toEqual({
        step: 9,
        category: 'intent_denied',
        reason: 'reputation_below_threshold',
      });
      expect(denial(context({ agent: { ...AGENT, vouchCount: 0 } }))).toMatchObject({ step: 9 });
    });
  });

  describe('step 10 — escalation bounds (intent_denied; escalate if needed)', () => {
    it('escalates above the amount trigger', () => {
      expect(runCascade(context({ request: request({ value: { amount: '90', currency: 'EUR' } }) }))).toEqual({
        decision: 'escalate',
        step: 10,
      });
    });
    it('denies a triggered escalation with no approver', () => {
      const bounds = { ...FULL_BOUNDS, escalation_bounds: { always: true, quorum_type: 'all' as const, approvers: [] } };
      expect(denial(context({ authority: authority({}, bounds) }))).toEqual({
        step: 10,
        category: 'intent_denied',
        reason: 'escalation_without_approvers',
      });
    });
    it('denies rather than escalates when a later step fails', () => {
      expect(
        denial(context({ request: request({ value: { amount: '90', currency: 'EUR' } }), currentManifestSha256: 'm2' })),
      ).toMatchObject({ step: 15 });
    });
  });

  describe('step 11 — purpose-of-use compatible (intent_denied)', () => {
    it('denies an undeclared purpose and a jurisdiction outside the bounds', () => {
      expect(denial(context({ request: request({ purpose: 'gambling' }) }))).toEqual({
        step: 11,
        category: 'intent_denied',
        reason: 'purpose_incompatible',
      });
      expect(denial(context({ request: request({ metadata: { delegation_purpose: 'gambling' } }) }))).toMatchObject({ step: 11 });
      expect(denial(context({ request: request({ jurisdiction: 'US' }) }))).toMatchObject({ step: 11, reason: 'jurisdiction_not_allowed' });
      expect(runCascade(context({ request: request({ purpose: 'shopping', jurisdiction: 'FR' }) }))).toEqual({ decision: 'allow' });
    });
  });

  describe('step 12 — reserved max_actions', () => {
    it('denies once the lifetime maximum is reached', () => {
      expect(denial(context({ history: { ...EMPTY_HISTORY, total: 10 } }))).toEqual({
        step: 12,
        category: 'max_actions',
        reason: 'max_actions_reached',
      });
    });
  });

  describe('step 13 — sequence bounds (trajectory_denied)', () => {
    it('denies rate, repetition and ordering violations', () => {
      expect(denial(context({ history: { ...EMPTY_HISTORY, lastMinute: 3 } }))).toEqual({
        step: 13,
        category: 'trajectory_denied',
        reason: 'sequence_rate_exceeded',
      });
      expect(denial(context({ history: { ...EMPTY_HISTORY, recentActions: ['pay', 'pay', 'quote'] } }))).toMatchObject({
        step: 13,
        reason: 'sequence_repetition_exceeded',
      });
      expect(denial(context({ history: { ...EMPTY_HISTORY, grantedActions: new Set() } }))).toMatchObject({
        step: 13,
        reason: 'sequence_order_violated',
      });
    });
  });

  describe('step 14 — continuation chain depth (trajectory_denied)', () => {
    const agent = AGENT.id;
    const good = [
      hop('user_1', 'planner', 'planner', '2026-03-04T09:00:00Z', 'payments:write profile:read'),
      hop('planner', 'agent', agent, '2026-03-04T09:05:00Z', 'payments:write'),
    ];
    it('accepts a valid chain within the depth', () => {
      expect(runCascade(context({ request: request({ delegationChain: good }) }))).toEqual({ decision: 'allow' });
    });
    it('denies a chain deeper than the bound', () => {
      const deep = [hop('root', 'user_1', 'user_1', '2026-03-04T08:00:00Z', 'payments:write profile:read'), ...good];
      expect(denial(context({ request: request({ delegationChain: deep }) }))).toEqual({
        step: 14,
        category: 'trajectory_denied',
        reason: 'continuation_depth_exceeded',
      });
    });
    it.each([
      ['out of chronological order', [good[0]!, { ...good[1]!, delegated_at: '2026-03-04T08:00:00Z' }]],
      ['broken audience chaining', [good[0]!, { ...good[1]!, iss: 'someone' }]],
      ['scope widened', [good[0]!, { ...good[1]!, scope: 'payments:write mail:send' }]],
      ['last hop not the agent', [good[0]!, { ...good[1]!, sub: 'agent_us_bbbbbbbbbbbbbbbbbbbb' }]],
    ])('denies delegation_chain_invalid when %s', (_name, chain) => {
      expect(denial(context({ request: request({ delegationChain: chain as DelegationHop[] }) }))).toEqual({
        step: 14,
        category: 'trajectory_denied',
        reason: 'delegation_chain_invalid',
      });
    });
  });

  describe('step 15 — drift detection (trajectory_denied)', () => {
    it('denies when the capability manifest changed since the authority', () => {
      expect(denial(context({ currentManifestSha256: 'm2' }))).toEqual({
        step: 15,
        category: 'trajectory_denied',
        reason: 'capability_drift',
      });
    });
  });
});

describe('bounds stored in a shape the cascade cannot enforce fail closed (spec: absence is never unlimited)', () => {
  it.each([
    ['time_bounds', {}, 8],
    ['time_bounds', [], 8],
    ['reputation_bounds', {}, 9],
    ['reputation_bounds', [], 9],
    ['oap_sequence_bounds', {}, 13],
    ['oap_sequence_bounds', [], 13],
    ['value_bounds', { currency: 'EUR', per_action: null }, 7],
    ['scope_bounds', { allowed: null }, 4],
    ['time_bounds', { unrestricted: false }, 8],
    ['jurisdiction_bounds', null, 11],
  ])('denies with bounds_invalid at its step when %s is stored as %j', (key, stored, step) => {
    const bounds = { ...FULL_BOUNDS, [key]: stored } as unknown as AuthorityBounds;
    expect(denial(context({ authority: authority({}, bounds) }))).toMatchObject({ step, reason: 'bounds_invalid' });
  });

  it('still lets an explicit unrestricted: true through', () => {
    const bounds = {
      ...FULL_BOUNDS,
      time_bounds: { unrestricted: true },
      reputation_bounds: { unrestricted: true },
      oap_sequence_bounds: { unrestricted: true },
    };
    expect(runCascade(context({ authority: authority({}, bounds) })).decision).not.toBe('deny');
  });
});
