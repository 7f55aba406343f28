import { context } from '../../../test/cascade-fixtures';
import type { AuthorityBounds } from '../../authorities/bounds';
import { CASCADE_STEPS, runCascade } from './cascade';

/** The bound each step enforces: one stored in a shape it cannot enforce denies at that step. */
const STEP_BOUNDS: Array<[number, keyof AuthorityBounds | undefined]> = [
  [3, undefined],
  [4, 'scope_bounds'],
  [5, 'action_bounds'],
  [6, 'action_bounds'],
  [7, 'value_bounds'],
  [8, 'time_bounds'],
  [9, 'reputation_bounds'],
  [10, 'escalation_bounds'],
  [11, 'jurisdiction_bounds'],
  [12, 'action_bounds'],
  [13, 'oap_sequence_bounds'],
  [14, 'oap_sequence_bounds'],
  [15, 'action_bounds'],
];

describe('each cascade step fails closed on its own malformed bound', () => {
  it('declares the bound it enforces', () => {
    expect(CASCADE_STEPS.map((s) => [s.step, s.bounds?.[0]])).toEqual(STEP_BOUNDS);
  });

  it.each(STEP_BOUNDS.filter(([, key]) => key !== undefined))(
    'step %i denies bounds_invalid when %s is stored empty, naming it',
    (number, key) => {
      const step = CASCADE_STEPS.find((s) => s.step === number)!;
      const verdict = runCascade(context({ [key!]: {} } as AuthorityBounds), [step]);
      expect(verdict).toEqual({
        decision: 'deny',
        step: number,
        category: step.category,
        reason: 'bounds_invalid',
        message: expect.stringMatching(new RegExp(`^The authority's ${key} must hold at least one constraint`)),
      });
    },
  );

  it('runs the step itself when its bound is absent or well formed', () => {
    const step08 = CASCADE_STEPS.find((s) => s.step === 8)!;
    expect(runCascade(context({}), [step08])).toMatchObject({ decision: 'deny', reason: 'time_bounds_not_configured' });
    expect(runCascade(context({ time_bounds: { unrestricted: true }, scope_bounds: {} as never }), [step08])).toEqual({
      decision: 'allow',
    });
  });

  it('leaves the missing authority to step 3', () => {
    expect(runCascade(context({}, { authority: undefined }), [CASCADE_STEPS[0]!])).toMatchObject({
      decision: 'deny',
      step: 3,
      reason: 'authority_not_found',
    });
    expect(() => runCascade(context({}, { authority: undefined }), [CASCADE_STEPS[1]!])).toThrow(
      'cascade step ran without an authority; step 3 must run first',
    );
  });
});
