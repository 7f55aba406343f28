import type { Authority } from '../../authorities/authority';
import { authorityOf, deny, pass, type CascadeContext, cascadeStep } from './cascade-step';

/** How many grants, this request included, the action mix is measured over. */
export const PURPOSE_DRIFT_WINDOW = 20;
/** Fewer grants than this (this request included) are too few to judge a mix. */
export const PURPOSE_DRIFT_MIN_GRANTS = 10;
/** The mix has left the purpose when strictly more than this share of the window is off-purpose. */
export const PURPOSE_DRIFT_MAX_OFF_PURPOSE_SHARE = 0.5;

/**
 * The actions the authority's declared purpose names: the exact entries of
 * `action_bounds.allowed`. `<prefix>:*` wildcards and `unrestricted: true` let more actions
 * through step 5, but only named actions describe what the principal delegated the purpose for.
 */
export function purposeActions(authority: Authority): ReadonlySet<string> {
  return new Set((authority.bounds.action_bounds?.allowed ?? []).filter((pattern) => !pattern.endsWith(':*')));
}

/**
 * The action mix over the last {@link PURPOSE_DRIFT_WINDOW} grants of the authority, this
 * request included: how many are off-purpose (a past grant by its first action, the only one the
 * history keeps; this request when any of its actions is outside the purpose) out of how many.
 */
export function purposeMix(
  context: CascadeContext,
  purpose: ReadonlySet<string>,
): { offPurpose: number; grants: number; requestOffPurpose: boolean } {
  const past = context.history.recentActions.slice(0, PURPOSE_DRIFT_WINDOW - 1);
  const requestOffPurpose = context.request.actions.some((action) => !purpose.has(action));
  const offPurpose = past.filter((action) => !purpose.has(action)).length + (requestOffPurpose ? 1 : 0);
  return { offPurpose, grants: past.length + 1, requestOffPurpose };
}

/**
 * Step 15, drift detection (architecture brief, Interpretations): the agent has drifted when
 * 1. its current capability manifest SHA-256 differs from the one recorded on the authority when
 *    it was created (`capability_drift`: a changed agent needs a fresh authority), or
 * 2. its action mix leaves the declared purpose (`purpose_drift`): the request carries an action
 *    outside {@link purposeActions} and, counting it, more than half of the authority's last 20
 *    grants are off-purpose, once there are at least 10. A request inside the purpose always
 *    passes this rule (it moves the mix back). An authority naming no exact action (wildcards
 *    only, or `unrestricted` without `allowed`) declares no purpose actions to drift from.
 */
export const step15Drift = cascadeStep({
  step: 15,
  name: 'drift_detection',
  category: 'trajectory_denied',
  reasons: ['capability_drift', 'purpose_drift'],
  bounds: ['action_bounds'],
  check(context) {
    const authority = authorityOf(context);
    if (authority.manifestSha256 !== context.currentManifestSha256)
      return deny('capability_drift', "The agent's capability manifest changed since the authority was granted");
    const purpose = purposeActions(authority);
    if (purpose.size === 0) return pass;
    const mix = purposeMix(context, purpose);
    if (
      mix.requestOffPurpose &&
      mix.grants >= PURPOSE_DRIFT_MIN_GRANTS &&
      mix.offPurpose / mix.grants > PURPOSE_DRIFT_MAX_OFF_PURPOSE_SHARE
    ) {
      return deny(
        'purpose_drift',
        `${mix.offPurpose} of the last ${mix.grants} grants fall outside the authority's declared purpose actions`,
      );
    }
    return pass;
  },
});
