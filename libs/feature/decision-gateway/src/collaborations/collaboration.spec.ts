import { canAttach, canManage, canSee, mayAnswer, statusAfterMove, type CollaborationMember } from './collaboration';

const member = (over: Partial<CollaborationMember>): CollaborationMember => ({
  collaborationId: 'col_us_aaaaaaaaaaaaaaaaaaaa',
  partyId: 'tp_us_bbbbbbbbbbbbbbbbbbbb',
  partyType: 'application',
  role: 'member',
  status: 'accepted',
  invitedBy: 'tp_us_cccccccccccccccccccc',
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...over,
});

describe('collaboration invitations and roles', () => {
  it('an invitation is accepted or declined once; the owner revokes an invited or accepted member; final statuses stay final', () => {
    expect(statusAfterMove('invited', 'accept')).toBe('accepted');
    expect(statusAfterMove('invited', 'decline')).toBe('declined');
    expect(statusAfterMove('invited', 'revoke')).toBe('revoked');
    expect(statusAfterMove('accepted', 'revoke')).toBe('revoked');
    expect(statusAfterMove('accepted', 'accept')).toBeUndefined();
    expect(statusAfterMove('accepted', 'decline')).toBeUndefined();
    for (const move of ['accept', 'decline', 'revoke'] as const) {
      expect(statusAfterMove('declined', move)).toBeUndefined();
      expect(statusAfterMove('revoked', move)).toBeUndefined();
    }
  });

  it('the owner manages; owner and members attach; a viewer or a pending invitee only reads; a declined or revoked party sees nothing', () => {
    expect(canManage(member({ role: 'owner' }))).toBe(true);
    expect(canManage(member({ role: 'member' }))).toBe(false);
    expect(canAttach(member({ role: 'owner' }))).toBe(true);
    expect(canAttach(member({ role: 'member' }))).toBe(true);
    expect(canAttach(member({ role: 'viewer' }))).toBe(false);
    expect(canAttach(member({ role: 'member', status: 'invited' }))).toBe(false);
    expect(canSee(member({ status: 'invited' }))).toBe(true);
    expect(canSee(member({ status: 'declined' }))).toBe(false);
    expect(canSee(member({ status: 'revoked' }))).toBe(false);
    expect(canSee(undefined)).toBe(false);
  });

  it('an application answers its own invitation; only the person themselves answers a person’s invitation', () => {
    const app = member({ status: 'invited' });
    expect(mayAnswer(app, { applicationId: app.partyId })).toBe(true);
    expect(mayAnswer(app, { applicationId: 'tp_us_dddddddddddddddddddd' })).toBe(false);
    const person = member({ status: 'invited', partyType: 'person', partyId: 'usr_us_eeeeeeeeeeeeeeeeeeee' });
    expect(mayAnswer(person, { applicationId: 'tp_us_cccccccccccccccccccc' })).toBe(false);
    expect(mayAnswer(person, { applicationId: 'tp_us_cccccccccccccccccccc', personId: 'usr_us_eeeeeeeeeeeeeeeeeeee' })).toBe(true);
    expect(mayAnswer(person, { applicationId: 'tp_us_cccccccccccccccccccc', personId: 'usr_us_ffffffffffffffffffff' })).toBe(false);
  });
});
