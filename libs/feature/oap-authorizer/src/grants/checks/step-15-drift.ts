import { authorityOf, deny, pass, type CascadeStep } from './cascade-step';

/**
 * Step 15, drift detection: the agent's current capability manifest must be the one recorded on
 * the authority when it was created (a changed agent needs a fresh authority), and every requested
 * action must still be declared by that manifest when it declares actions.
 */
export const step15Drift: CascadeStep = {
  step: 15,
  name: 'drift_detection',
  category: 'trajectory_denied',
  check(context) {
    const authority = authorityOf(context);
    if (authority.manifestSha256 !== context.currentManifestSha256) return deny('capability_drift', "The agent's capability manifest changed since the authority was granted");
    return pass;
  },
};
