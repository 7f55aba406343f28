import { authorityOf, deny, matchesName, pass, cascadeStep } from './cascade-step';

/**
 * Step 6, reserved by the spec as `action_not_prohibited`: no requested action is on the
 * authority's `action_bounds.prohibited` list (a prohibition wins even over `unrestricted`).
 */
export const step06ActionNotProhibited = cascadeStep({
  step: 6,
  name: 'action_not_prohibited',
  category: 'action_not_prohibited',
  reasons: ['action_prohibited'],
  bounds: ['action_bounds'],
  check(context) {
    const prohibited = authorityOf(context).bounds.action_bounds?.prohibited ?? [];
    for (const action of context.request.actions) {
      if (prohibited.some((p) => matchesName(p, action))) return deny('action_prohibited', `Action ${action} is prohibited`);
    }
    return pass;
  },
});
