import { PASS, context, denied, history, run } from '../../../test/cascade-fixtures';
import type { ActionBounds } from '../../authorities/bounds';
import { step12MaxActions } from './step-12-max-actions';

const verdict = (actionBounds: ActionBounds | undefined, total: number) =>
  run(step12MaxActions, context(actionBounds ? { action_bounds: actionBounds } : {}, { history: history({ total }) }));

describe('step 12 — max actions', () => {
  it('allows the last grant up to the maximum and denies the next', () => {
    expect(verdict({ allowed: ['pay'], max_actions: 10 }, 9)).toEqual(PASS);
    expect(verdict({ allowed: ['pay'], max_actions: 10 }, 10)).toEqual(
      denied('max_actions_reached', 'The authority allows at most 10 grants'),
    );
  });

  it('checks nothing without a maximum', () => {
    expect(verdict({ allowed: ['pay'] }, 1_000_000)).toEqual(PASS);
    expect(verdict(undefined, 1_000_000)).toEqual(PASS);
  });
});
