import { suppress } from './suppression';

describe('clean room small-cell suppression (issue 18, Comply: clean rooms)', () => {
  it('answers every count at or above the minimum cohort', () => {
    expect(suppress({ initiator_audience: 100, partner_audience: 80, overlap: 50 }, 20)).toEqual({
      counts: { initiator_audience: 100, partner_audience: 80, overlap: 50 },
      suppressed: [],
    });
  });

  it('suppresses a count below the minimum as null and names it', () => {
    expect(suppress({ initiator_audience: 100, partner_audience: 120, overlap: 9 }, 10)).toEqual({
      counts: { initiator_audience: 100, partner_audience: 120, overlap: null },
      suppressed: ['overlap'],
    });
    expect(suppress({ initiator_audience: 4, partner_audience: 120, overlap: 0 }, 10).suppressed).toEqual([
      'initiator_audience',
      'overlap',
    ]);
  });

  it('suppresses the overlap when it leaves a small remainder of either audience (complement rule)', () => {
    expect(suppress({ initiator_audience: 100, partner_audience: 53, overlap: 50 }, 10)).toEqual({
      counts: { initiator_audience: 100, partner_audience: 53, overlap: null },
      suppressed: ['overlap'],
    });
    // A full overlap (remainder 0) singles no one out.
    expect(suppress({ initiator_audience: 100, partner_audience: 50, overlap: 50 }, 10).suppressed).toEqual([]);
  });
});
