import { authorityOf, deny, pass, cascadeStep } from './cascade-step';

/**
 * Step 13, sequence bounds: rate (grants per rolling minute), repetition (consecutive grants of the
 * same action) and ordering (an action in `ordering` only after all its predecessors were granted).
 */
export const step13Sequence = cascadeStep({
  step: 13,
  name: 'sequence_bounds',
  category: 'trajectory_denied',
  reasons: ['sequence_bounds_not_configured', 'sequence_rate_exceeded', 'sequence_repetition_exceeded', 'sequence_order_violated'],
  bounds: ['oap_sequence_bounds'],
  check(context) {
    const bounds = authorityOf(context).bounds.oap_sequence_bounds;
    if (!bounds) return deny('sequence_bounds_not_configured', 'The authority configures no sequence bounds');
    if (bounds.unrestricted) return pass;
    const { history, request } = context;
    if (bounds.max_per_minute !== undefined && history.lastMinute + 1 > bounds.max_per_minute)
      return deny('sequence_rate_exceeded', `At most ${bounds.max_per_minute} grants per minute`);
    if (bounds.max_repetitions !== undefined) {
      const action = request.actions[0];
      let run = 0;
      for (const previous of history.recentActions) {
        if (previous !== action) break;
        run += 1;
      }
      if (run + 1 > bounds.max_repetitions)
        return deny('sequence_repetition_exceeded', `At most ${bounds.max_repetitions} consecutive ${action} grants`);
    }
    if (bounds.ordering) {
      const done = new Set(history.grantedActions);
      for (const action of request.actions) {
        const index = bounds.ordering.indexOf(action);
        if (index > 0 && !bounds.ordering.slice(0, index).every((before) => done.has(before))) {
          return deny('sequence_order_violated', `${action} requires ${bounds.ordering.slice(0, index).join(', ')} first`);
        }
        done.add(action);
      }
    }
    return pass;
  },
});
