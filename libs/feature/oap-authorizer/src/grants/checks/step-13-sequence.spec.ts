import { PASS, context, denied, history, request, run } from '../../../test/cascade-fixtures';
import type { SequenceBounds } from '../../authorities/bounds';
import type { GrantHistory } from './cascade-step';
import { step13Sequence } from './step-13-sequence';

const verdict = (sequence: SequenceBounds | undefined, actions: string[], past: Partial<GrantHistory> = {}) =>
  run(
    step13Sequence,
    context(sequence ? { oap_sequence_bounds: sequence } : {}, { request: request({ actions }), history: history(past) }),
  );

describe('step 13 — sequence bounds', () => {
  it('denies when the authority configures no sequence bounds', () => {
    expect(verdict(undefined, ['pay'])).toEqual(denied('sequence_bounds_not_configured', 'The authority configures no sequence bounds'));
  });

  it('passes everything when unrestricted', () => {
    expect(
      verdict({ unrestricted: true, max_per_minute: 1, max_repetitions: 1, ordering: ['quote', 'pay'] }, ['pay'], {
        lastMinute: 5,
        recentActions: ['pay'],
      }),
    ).toEqual(PASS);
  });

  it('passes empty sequence bounds', () => {
    expect(verdict({}, ['pay'], { lastMinute: 1000, recentActions: ['pay', 'pay', 'pay'] })).toEqual(PASS);
  });

  describe('max_per_minute', () => {
    it('allows the last grant of the minute and denies the next', () => {
      expect(verdict({ max_per_minute: 3 }, ['pay'], { lastMinute: 2 })).toEqual(PASS);
      expect(verdict({ max_per_minute: 3 }, ['pay'], { lastMinute: 3 })).toEqual(
        denied('sequence_rate_exceeded', 'At most 3 grants per minute'),
      );
    });
  });

  describe('max_repetitions', () => {
    it('allows up to the maximum consecutive grants of one action and denies the next', () => {
      expect(verdict({ max_repetitions: 2 }, ['pay'], { recentActions: ['pay', 'quote', 'pay'] })).toEqual(PASS);
      expect(verdict({ max_repetitions: 2 }, ['pay'], { recentActions: ['pay', 'pay', 'quote'] })).toEqual(
        denied('sequence_repetition_exceeded', 'At most 2 consecutive pay grants'),
      );
    });
    it('counts only the run of the same action at the head of the history', () => {
      expect(verdict({ max_repetitions: 2 }, ['pay'], { recentActions: ['quote', 'pay', 'pay'] })).toEqual(PASS);
      expect(verdict({ max_repetitions: 1 }, ['pay'], { recentActions: ['quote', 'pay'] })).toEqual(PASS);
      expect(verdict({ max_repetitions: 1 }, ['pay'], { recentActions: ['pay'] })).toMatchObject({
        reason: 'sequence_repetition_exceeded',
      });
    });
  });

  describe('ordering', () => {
    const ordering = ['quote', 'confirm', 'pay'];
    it('denies an action until every predecessor was granted', () => {
      expect(verdict({ ordering }, ['pay'], { grantedActions: new Set(['quote']) })).toEqual(
        denied('sequence_order_violated', 'pay requires quote, confirm first'),
      );
      expect(verdict({ ordering }, ['pay'], { grantedActions: new Set(['confirm']) })).toMatchObject({ reason: 'sequence_order_violated' });
      expect(verdict({ ordering }, ['confirm'], { grantedActions: new Set() })).toEqual(
        denied('sequence_order_violated', 'confirm requires quote first'),
      );
    });
    it('passes once every predecessor was granted, and the first step or unlisted actions at any time', () => {
      expect(verdict({ ordering }, ['pay'], { grantedActions: new Set(['quote', 'confirm']) })).toEqual(PASS);
      expect(verdict({ ordering }, ['quote'])).toEqual(PASS);
      expect(verdict({ ordering }, ['refund'])).toEqual(PASS);
    });
    it('counts predecessors requested earlier in the same request', () => {
      expect(verdict({ ordering }, ['quote', 'confirm', 'pay'])).toEqual(PASS);
      expect(verdict({ ordering }, ['pay', 'quote', 'confirm'])).toMatchObject({ reason: 'sequence_order_violated' });
    });
  });
});
