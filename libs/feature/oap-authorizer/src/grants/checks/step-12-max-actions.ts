import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 12, reserved by the spec as `max_actions`: no more grants under the authority than
 * `action_bounds.max_actions` over its lifetime (only checked when set).
 */
export const step12MaxActions = cascadeStep({
  step: 12,
  name: 'max_actions',
  category: 'max_actions',
  reasons: ['max_actions_reached'],
  bounds: ['action_bounds'],
  check(context) {
    const max = authorityOf(context).bounds.action_bounds?.max_actions;
    if (max !== undefined && context.history.total + 1 > max)
      return deny('max_actions_reached', `The authority allows at most ${max} grants`);
    return pass;
  },
});
