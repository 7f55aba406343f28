import { PASS, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { ActionBounds } from '../../authorities/bounds';
import { step05ActionAllowed } from './step-05-action-allowed';

const verdict = (actionBounds: ActionBounds | undefined, actions: string[]) =>
  run(step05ActionAllowed, context(actionBounds ? { action_bounds: actionBounds } : {}, { request: request({ actions }) }));

describe('step 5 — action allowed', () => {
  it('denies when the authority configures no action bounds', () => {
    expect(verdict(undefined, ['pay'])).toEqual(denied('action_bounds_not_configured', 'The authority configures no action bounds'));
  });

  it('allows actions matching any entry of a list of several', () => {
    expect(verdict({ allowed: ['quote', 'pay', 'catalog:*'] }, ['pay'])).toEqual(PASS);
    expect(verdict({ allowed: ['quote', 'pay', 'catalog:*'] }, ['catalog:read', 'quote'])).toEqual(PASS);
  });

  it('denies the first action outside the allowed list', () => {
    expect(verdict({ allowed: ['quote', 'pay'] }, ['pay', 'transfer'])).toEqual(
      denied('action_not_allowed', 'Action transfer is not allowed'),
    );
    expect(verdict({ allowed: ['pay'] }, ['payout'])).toEqual(denied('action_not_allowed', 'Action payout is not allowed'));
  });

  it('denies every action when the allowed list is absent and actions are not unrestricted', () => {
    expect(verdict({ prohibited: ['delete'] }, ['pay'])).toEqual(denied('action_not_allowed', 'Action pay is not allowed'));
  });

  it('lets every action through when unrestricted', () => {
    expect(verdict({ unrestricted: true }, ['wire', 'transfer'])).toEqual(PASS);
  });
});
