import type { EscalationTrigger } from '@svc/contracts';
import type { EscalationBounds } from '../../authorities/bounds';
import { compareDecimal } from '../../shared/decimal';
import { authorityOf, deny, matchesName, pass, cascadeStep, type GrantRequest } from './cascade-step';

/** Every escalation bound the request hits (always, amount over, listed action or scope), in that order. */
export function escalationTriggers(
  bounds: EscalationBounds,
  request: Pick<GrantRequest, 'value' | 'actions' | 'scopes'>,
): EscalationTrigger[] {
  const triggers: EscalationTrigger[] = [];
  if (bounds.always === true) triggers.push({ bound: 'always' });
  if (bounds.amount_over !== undefined && request.value !== undefined && compareDecimal(request.value.amount, bounds.amount_over) > 0) {
    triggers.push({ bound: 'amount_over', limit: bounds.amount_over, amount: request.value.amount, currency: request.value.currency });
  }
  const actions = request.actions.filter((a) => (bounds.actions ?? []).some((p) => matchesName(p, a)));
  if (actions.length > 0) triggers.push({ bound: 'actions', matched: actions });
  const scopes = request.scopes.filter((s) => (bounds.scopes ?? []).some((p) => matchesName(p, s)));
  if (scopes.length > 0) triggers.push({ bound: 'scopes', matched: scopes });
  return triggers;
}

/**
 * Step 10, escalation bounds: when a trigger matches (always, amount over, listed action or scope)
 * the request escalates to the principal(s); with no approver to ask it is denied. Without
 * `escalation_bounds` nothing triggers: escalation narrows authority, it never grants any.
 */
export const step10Escalation = cascadeStep({
  step: 10,
  name: 'escalation_bounds',
  category: 'intent_denied',
  reasons: ['escalation_without_approvers', 'escalation_required'],
  bounds: ['escalation_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.escalation_bounds;
    if (!bounds) return pass;
    if (escalationTriggers(bounds, context.request).length === 0) return pass;
    if (bounds.approvers.length === 0)
      return deny('escalation_without_approvers', 'The request needs approval but the authority names no approver');
    return { outcome: 'escalate', reason: 'escalation_required' };
  },
});
