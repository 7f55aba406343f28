import { AGENT, PASS, context, denied, run } from '../../../test/cascade-fixtures';
import type { ReputationBounds } from '../../authorities/bounds';
import { step09Reputation } from './step-09-reputation';

const verdict = (reputationBounds: ReputationBounds | undefined, trustScore: number, vouchCount: number) =>
  run(
    step09Reputation,
    context(reputationBounds ? { reputation_bounds: reputationBounds } : {}, { agent: { ...AGENT, trustScore, vouchCount } }),
  );
const BOUNDS = { min_trust_score: 50, min_vouch_count: 2 };

describe('step 9 — reputation threshold', () => {
  it('denies when the authority configures no reputation bounds', () => {
    expect(verdict(undefined, 100, 100)).toEqual(
      denied('reputation_bounds_not_configured', 'The authority configures no reputation bounds'),
    );
  });

  it('passes any reputation when unrestricted', () => {
    expect(verdict({ unrestricted: true, min_trust_score: 90 }, 0, 0)).toEqual(PASS);
  });

  it('passes exactly the minimum trust score and denies one below', () => {
    expect(verdict(BOUNDS, 50, 2)).toEqual(PASS);
    expect(verdict(BOUNDS, 49, 2)).toEqual(
      denied('reputation_below_threshold', 'Trust score 49 is below the minimum (min_trust_score 50)'),
    );
  });

  it('passes exactly the minimum vouch count and denies one below', () => {
    expect(verdict(BOUNDS, 80, 1)).toEqual(denied('reputation_below_threshold', 'Vouch count 1 is below the minimum (min_vouch_count 2)'));
  });

  it('checks only the minimums that are set', () => {
    expect(verdict({ min_vouch_count: 1 }, 0, 1)).toEqual(PASS);
    expect(verdict({ min_trust_score: 10 }, 10, 0)).toEqual(PASS);
  });
});
