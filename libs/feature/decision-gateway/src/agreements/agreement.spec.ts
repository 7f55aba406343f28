import { aggregate, requiredVotes } from '../decisions/quorum';
import { statusAfter } from './agreement';

/** Issue 24: the states of an agreement (spec, States: Agreement (multi-party), and our final moves). */
describe('agreement status after its votes', () => {
  const after = (
    tally: { yes: number; no: number; counter: number; expired: number },
    parties: number,
    type: 'all' | 'majority' | 'threshold',
    threshold?: number,
  ) => {
    const required = requiredVotes(type, parties, threshold);
    return statusAfter(tally, parties, required, aggregate(tally, parties, required));
  };

  it('pending → partially_signed → active once a majority of three signed', () => {
    expect(after({ yes: 0, no: 0, counter: 0, expired: 0 }, 3, 'majority')).toBe('pending');
    expect(after({ yes: 1, no: 0, counter: 0, expired: 0 }, 3, 'majority')).toBe('partially_signed');
    expect(after({ yes: 2, no: 0, counter: 0, expired: 0 }, 3, 'majority')).toBe('active');
  });

  it('declined once the quorum is out of reach by a decline or a counter', () => {
    expect(after({ yes: 0, no: 1, counter: 0, expired: 0 }, 2, 'all')).toBe('declined');
    expect(after({ yes: 1, no: 0, counter: 1, expired: 0 }, 2, 'all')).toBe('declined');
    expect(after({ yes: 1, no: 1, counter: 0, expired: 0 }, 3, 'majority')).toBe('partially_signed');
  });

  it('expired when only lapsed deadlines put the quorum out of reach', () => {
    expect(after({ yes: 0, no: 1, counter: 0, expired: 1 }, 1, 'all')).toBe('expired');
    expect(after({ yes: 1, no: 2, counter: 0, expired: 1 }, 3, 'majority')).toBe('declined');
  });

  it('a threshold of one binds on the first signature', () => {
    expect(after({ yes: 1, no: 0, counter: 0, expired: 0 }, 3, 'threshold', 1)).toBe('active');
  });
});
