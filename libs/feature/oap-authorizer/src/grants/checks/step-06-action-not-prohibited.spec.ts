import { PASS, context, denied, request, run } from '../../../test/cascade-fixtures';
import type { ActionBounds } from '../../authorities/bounds';
import { step06ActionNotProhibited } from './step-06-action-not-prohibited';

const verdict = (actionBounds: ActionBounds | undefined, actions: string[]) =>
  run(step06ActionNotProhibited, context(actionBounds ? { action_bounds: actionBounds } : {}, { request: request({ actions }) }));

describe('step 6 — action not prohibited', () => {
  it('denies an action matching any entry of a prohibited list of several', () => {
    const bounds = { allowed: ['pay'], prohibited: ['delete', 'wire:*'] };
    expect(verdict(bounds, ['wire:out'])).toEqual(denied('action_prohibited', 'Action wire:out is prohibited'));
    expect(verdict(bounds, ['delete'])).toEqual(denied('action_prohibited', 'Action delete is prohibited'));
  });

  it('denies when any requested action is prohibited, not only the first', () => {
    expect(verdict({ prohibited: ['delete'] }, ['pay', 'delete'])).toEqual(denied('action_prohibited', 'Action delete is prohibited'));
  });

  it('wins over unrestricted actions', () => {
    expect(verdict({ unrestricted: true, prohibited: ['delete', 'export'] }, ['export'])).toMatchObject({ reason: 'action_prohibited' });
  });

  it('passes actions not prohibited, and when nothing is prohibited', () => {
    expect(verdict({ prohibited: ['delete', 'wire:*'] }, ['pay', 'wire'])).toEqual(PASS);
    expect(verdict({ allowed: ['pay'] }, ['pay'])).toEqual(PASS);
    expect(verdict(undefined, ['pay'])).toEqual(PASS);
  });
});
