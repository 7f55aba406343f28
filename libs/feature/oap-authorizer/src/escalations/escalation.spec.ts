import { approvalsNeeded, quorumOutcome } from './escalation';

describe('escalation quorum (spec: Authority bounds, escalation quorum_type)', () => {
  it('needs all, a strict majority, or the threshold', () => {
    expect(approvalsNeeded('all', 3)).toBe(3);
    expect(approvalsNeeded('majority', 4)).toBe(3);
    expect(approvalsNeeded('majority', 3)).toBe(2);
    expect(approvalsNeeded('threshold', 5, 2)).toBe(2);
  });

  it('aggregates votes into one outcome', () => {
    const base = { approvers: ['a', 'b', 'c'], threshold: 2 };
    expect(quorumOutcome({ ...base, votes: { a: 'approve' } })).toBe('pending');
    expect(quorumOutcome({ ...base, votes: { a: 'approve', b: 'approve' } })).toBe('approved');
    expect(quorumOutcome({ ...base, votes: { a: 'deny', b: 'deny' } })).toBe('denied');
    expect(quorumOutcome({ approvers: ['a', 'b'], threshold: 2, votes: { a: 'deny' } })).toBe('denied');
  });
});
