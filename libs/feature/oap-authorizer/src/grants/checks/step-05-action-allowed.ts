import { authorityOf, deny, matchesName, pass, cascadeStep } from './cascade-step';

/** Step 5, action allowed: every requested action is in `action_bounds.allowed`. */
export const step05ActionAllowed = cascadeStep({
  step: 5,
  name: 'action_allowed',
  category: 'authorization_denied',
  reasons: ['action_bounds_not_configured', 'action_not_allowed'],
  bounds: ['action_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.action_bounds;
    if (!bounds) return deny('action_bounds_not_configured', 'The authority configures no action bounds');
    if (bounds.unrestricted) return pass;
    for (const action of context.request.actions) {
      if (!bounds.allowed?.some((p) => matchesName(p, action))) return deny('action_not_allowed', `Action ${action} is not allowed`);
    }
    return pass;
  },
});
