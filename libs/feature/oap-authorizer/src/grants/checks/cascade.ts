import { boundDefect } from '../../authorities/bound-shape';
import type { CascadeContext, CascadeStep, DenialCategory, ReasonOf, StepResult } from './cascade-step';
import { step03GrantActive } from './step-03-grant-active';
import { step04ScopeAllowed } from './step-04-scope-allowed';
import { step05ActionAllowed } from './step-05-action-allowed';
import { step06ActionNotProhibited } from './step-06-action-not-prohibited';
import { step07ValueBounds } from './step-07-value-bounds';
import { step08TimeWindow } from './step-08-time-window';
import { step09Reputation } from './step-09-reputation';
import { step10Escalation } from './step-10-escalation';
import { step11Purpose } from './step-11-purpose';
import { step12MaxActions } from './step-12-max-actions';
import { step13Sequence } from './step-13-sequence';
import { step14ContinuationDepth } from './step-14-continuation-depth';
import { step15Drift } from './step-15-drift';

/** Steps 3–15 in the spec's order (1 and 2 run at the API edge). */
export const CASCADE_STEPS = [
  step03GrantActive,
  step04ScopeAllowed,
  step05ActionAllowed,
  step06ActionNotProhibited,
  step07ValueBounds,
  step08TimeWindow,
  step09Reputation,
  step10Escalation,
  step11Purpose,
  step12MaxActions,
  step13Sequence,
  step14ContinuationDepth,
  step15Drift,
] as const satisfies readonly CascadeStep[];

/** A bound stored in a shape its step cannot enforce denies at that step with this code. */
export const BOUNDS_INVALID = 'bounds_invalid';

/** Every reason code steps 3–15 answer with: `reason_code` of a grant denial or escalation. */
export type CascadeReason = ReasonOf<(typeof CASCADE_STEPS)[number]> | typeof BOUNDS_INVALID;

/** The cascade's outcome. */
export type CascadeDecision =
  | { decision: 'allow' }
  | { decision: 'deny'; step: number; category: DenialCategory; reason: CascadeReason; message: string }
  | { decision: 'escalate'; step: number };

/**
 * Runs steps 3–15 in order. The first denial ends the cascade. An escalation at step 10 is
 * remembered and the remaining steps still run, so a request that a later step would deny is
 * denied rather than put in front of the principal.
 */
export function runCascade(context: CascadeContext, steps: readonly CascadeStep<CascadeReason>[] = CASCADE_STEPS): CascadeDecision {
  let escalateAt: number | undefined;
  for (const step of steps) {
    const result = unenforceableBound(step, context) ?? step.check(context);
    if (result.outcome === 'deny')
      return { decision: 'deny', step: step.step, category: step.category, reason: result.reason, message: result.message };
    if (result.outcome === 'escalate') escalateAt ??= step.step;
  }
  return escalateAt === undefined ? { decision: 'allow' } : { decision: 'escalate', step: escalateAt };
}

/**
 * A bound of the step stored in a shape it cannot enforce (an empty object, an array, a null or
 * wrongly typed constraint, written before creation refused them): the step denies with
 * `bounds_invalid` rather than reading it as unlimited or failing the request.
 */
function unenforceableBound(step: CascadeStep<CascadeReason>, context: CascadeContext): StepResult<typeof BOUNDS_INVALID> | undefined {
  const bounds = context.authority?.bounds as Record<string, unknown> | undefined;
  for (const key of step.bounds ?? []) {
    const value = bounds?.[key];
    if (value === undefined) continue;
    const defect = boundDefect(key, value);
    if (defect) return { outcome: 'deny', reason: BOUNDS_INVALID, message: `The authority's ${defect.message}` };
  }
  return undefined;
}
