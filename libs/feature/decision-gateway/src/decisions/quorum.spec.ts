import { aggregate, requiredVotes } from './quorum';

/** Spec: Agreement (multi-party) quorum; Events: one aggregated outcome per escalation with quorum. */
describe('quorum aggregation', () => {
  it('computes the votes each quorum type needs', () => {
    expect(requiredVotes('all', 3)).toBe(3);
    expect(requiredVotes('majority', 3)).toBe(2);
    expect(requiredVotes('majority', 4)).toBe(3);
    expect(requiredVotes('majority', 1)).toBe(1);
    expect(requiredVotes('threshold', 5, 2)).toBe(2);
  });

  it('stays undecided while the outcome can still go either way', () => {
    expect(aggregate({ yes: 1, no: 0, counter: 0 }, 3, 2)).toBeUndefined();
    expect(aggregate({ yes: 1, no: 1, counter: 0 }, 3, 2)).toBeUndefined();
    expect(aggregate({ yes: 0, no: 0, counter: 0 }, 1, 1)).toBeUndefined();
  });

  it('approves on reaching the required yes votes', () => {
    expect(aggregate({ yes: 2, no: 0, counter: 0 }, 3, 2)).toBe('yes');
    expect(aggregate({ yes: 3, no: 0, counter: 0 }, 3, 3)).toBe('yes');
  });

  it('denies as soon as yes is out of reach, and counters when counters outnumber refusals', () => {
    expect(aggregate({ yes: 0, no: 2, counter: 0 }, 3, 2)).toBe('no');
    expect(aggregate({ yes: 2, no: 1, counter: 0 }, 3, 3)).toBe('no');
    expect(aggregate({ yes: 0, no: 0, counter: 1 }, 1, 1)).toBe('counter');
    expect(aggregate({ yes: 0, no: 1, counter: 2 }, 3, 2)).toBe('counter');
  });

  it('resolves a tie between refusals and counters to no', () => {
    expect(aggregate({ yes: 1, no: 1, counter: 1 }, 3, 2)).toBe('no');
  });
});
