import { AGENT, NOW, authority as fixtureAuthority } from '../../../test/cascade-fixtures';
import type { Authority } from '../../authorities/authority';
import type { ActionBounds } from '../../authorities/bounds';
import { runCascade } from './cascade';
import type { CascadeContext, GrantHistory } from './cascade-step';
import { PURPOSE_DRIFT_MIN_GRANTS, PURPOSE_DRIFT_WINDOW, purposeActions, step15Drift } from './step-15-drift';

function authority(actionBounds: ActionBounds | undefined, manifestSha256: string | null = 'm1'): Authority {
  return fixtureAuthority(actionBounds ? { action_bounds: actionBounds } : {}, { manifestSha256 });
}

function history(recentActions: string[]): GrantHistory {
  return {
    total: recentActions.length,
    lastMinute: 0,
    buckets: { minute: 0, hour: 0, day: 0 },
    aggregate: '0',
    month: '0',
    recentActions,
    grantedActions: new Set(recentActions),
  };
}

/** Shopping: pay and quote are the purpose; the catalog wildcard is latitude, not purpose. */
const SHOPPING: ActionBounds = { allowed: ['pay', 'quote', 'catalog:*'] };

function context(
  actions: string[],
  recentActions: string[],
  bounds: ActionBounds | undefined = SHOPPING,
  current: string | null = 'm1',
): CascadeContext {
  return {
    now: NOW,
    request: {
      applicationId: AGENT.applicationId,
      agentId: AGENT.id,
      dpopJkt: 'jkt',
      scopes: ['payments:write'],
      actions,
      validUntil: new Date('2026-03-04T11:00:00Z'),
      delegationChain: [],
    },
    authority: authority(bounds),
    agent: AGENT,
    currentManifestSha256: current,
    history: history(recentActions),
  };
}

const repeat = (action: string, n: number): string[] => Array.from({ length: n }, () => action);
const verdict = (ctx: CascadeContext) => step15Drift.check(ctx);

describe('step 15 — drift detection', () => {
  describe('capability manifest', () => {
    it('denies capability_drift when the manifest changed, before looking at the mix', () => {
      expect(verdict(context(['pay'], [], SHOPPING, 'm2'))).toEqual({
        outcome: 'deny',
        reason: 'capability_drift',
        message: "The agent's capability manifest changed since the authority was granted",
      });
      expect(verdict(context(['pay'], [], SHOPPING, null))).toMatchObject({ outcome: 'deny', reason: 'capability_drift' });
    });
  });

  describe('action mix against the declared purpose', () => {
    it('takes the exact allowed actions as the purpose, not wildcards', () => {
      expect([...purposeActions(authority(SHOPPING))]).toEqual(['pay', 'quote']);
      expect(purposeActions(authority({ unrestricted: true })).size).toBe(0);
      expect(purposeActions(authority(undefined)).size).toBe(0);
    });

    it('denies purpose_drift (trajectory_denied, step 15) once more than half of the last 20 grants are off-purpose', () => {
      // 10 of 19 past grants off-purpose, plus this one: 11 of 20.
      const recent = [...repeat('catalog:export', 10), ...repeat('pay', 9)];
      expect(verdict(context(['catalog:export'], recent))).toMatchObject({ outcome: 'deny', reason: 'purpose_drift' });
      const cascade = runCascade(context(['catalog:export'], recent), [step15Drift]);
      expect(cascade).toMatchObject({ decision: 'deny', step: 15, category: 'trajectory_denied', reason: 'purpose_drift' });
    });

    it('passes at exactly half off-purpose', () => {
      const recent = [...repeat('catalog:export', 9), ...repeat('pay', 10)];
      expect(verdict(context(['catalog:export'], recent))).toEqual({ outcome: 'pass' });
    });

    it('always lets an on-purpose request through, so the mix can recover', () => {
      expect(verdict(context(['pay'], repeat('catalog:export', 40)))).toEqual({ outcome: 'pass' });
    });

    it('counts a request off-purpose when any of its actions is', () => {
      const recent = [...repeat('catalog:export', 10), ...repeat('pay', 9)];
      expect(verdict(context(['pay', 'catalog:export'], recent))).toMatchObject({ outcome: 'deny', reason: 'purpose_drift' });
    });

    it(`does not judge fewer than ${PURPOSE_DRIFT_MIN_GRANTS} grants`, () => {
      const recent = repeat('catalog:export', PURPOSE_DRIFT_MIN_GRANTS - 2);
      expect(verdict(context(['catalog:export'], recent))).toEqual({ outcome: 'pass' });
      expect(verdict(context(['catalog:export'], [...recent, 'catalog:export']))).toMatchObject({
        outcome: 'deny',
        reason: 'purpose_drift',
      });
    });

    it(`only looks at the last ${PURPOSE_DRIFT_WINDOW} grants`, () => {
      const recent = [...repeat('pay', PURPOSE_DRIFT_WINDOW - 1), ...repeat('catalog:export', 40)];
      expect(verdict(context(['catalog:export'], recent))).toEqual({ outcome: 'pass' });
    });

    it(`counts exactly ${PURPOSE_DRIFT_WINDOW - 1} past grants and this request`, () => {
      // 10 off-purpose of the 19 most recent, plus this one: 11 of 20. Older on-purpose grants do not dilute it.
      const recent = [...repeat('catalog:export', 10), ...repeat('pay', 9), 'pay', 'pay'];
      expect(verdict(context(['catalog:export'], recent))).toMatchObject({
        outcome: 'deny',
        reason: 'purpose_drift',
        message: "11 of the last 20 grants fall outside the authority's declared purpose actions",
      });
    });

    it('declares nothing to drift from with wildcards only or unrestricted actions', () => {
      expect(verdict(context(['catalog:export'], repeat('catalog:export', 30), { allowed: ['catalog:*'] }))).toEqual({ outcome: 'pass' });
      expect(verdict(context(['wire'], repeat('wire', 30), { unrestricted: true }))).toEqual({ outcome: 'pass' });
    });

    it('treats actions beyond named ones under unrestricted bounds as off-purpose', () => {
      expect(verdict(context(['wire'], repeat('wire', 30), { unrestricted: true, allowed: ['pay'] }))).toMatchObject({
        outcome: 'deny',
        reason: 'purpose_drift',
      });
    });
  });
});
