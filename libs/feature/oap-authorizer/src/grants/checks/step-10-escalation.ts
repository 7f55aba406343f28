import { compareDecimal } from '../../shared/decimal';
import { authorityOf, deny, matchesName, pass, type CascadeStep } from './cascade-step';

/**
 * Step 10, escalation bounds: when a trigger matches (always, amount over, listed action or scope)
 * the request escalates to the principal(s); with no approver to ask it is denied. Without
 * `escalation_bounds` nothing triggers: escalation narrows authority, it never grants any.
 */
export const step10Escalation: CascadeStep = {
  step: 10,
  name: 'escalation_bounds',
  category: 'intent_denied',
  bounds: ['escalation_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.escalation_bounds;
    if (!bounds) return pass;
    const { request } = context;
    const triggered =
      bounds.always === true ||
      (bounds.amount_over !== undefined && request.value !== undefined && compareDecimal(request.value.amount, bounds.amount_over) > 0) ||
      (bounds.actions ?? []).some((p) => request.actions.some((a) => matchesName(p, a))) ||
      (bounds.scopes ?? []).some((p) => request.scopes.some((s) => matchesName(p, s)));
    if (!triggered) return pass;
    if (bounds.approvers.length === 0) return deny('escalation_without_approvers', 'The request needs approval but the authority names no approver');
    return { outcome: 'escalate', reason: 'escalation_required' };
  },
};
