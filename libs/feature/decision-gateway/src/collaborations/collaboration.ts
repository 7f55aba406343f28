/**
 * Collaborations (spec, Agree: `/collaborations`): a shared space of parties (applications
 * `tp_…` and people `usr_…`) with roles, invitations, and the agreements attached to it.
 */
export const COLLABORATION_ROLES = ['owner', 'member', 'viewer'] as const;
export type CollaborationRole = (typeof COLLABORATION_ROLES)[number];

/** Roles an invitation may offer: there is one owner, the application that created the collaboration. */
export const INVITABLE_ROLES = ['member', 'viewer'] as const;
export type InvitableRole = (typeof INVITABLE_ROLES)[number];

/** invited → accepted | declined | revoked; accepted → revoked. declined and revoked are final. */
export const MEMBER_STATUSES = ['invited', 'accepted', 'declined', 'revoked'] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];

export type PartyType = 'application' | 'person';

/** The answers to an invitation and the owner's revocation. */
export type MemberMove = 'accept' | 'decline' | 'revoke';

export interface Collaboration {
  id: string;
  ownerApplicationId: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface CollaborationMember {
  collaborationId: string;
  /** `tp_…` or `usr_…` */
  partyId: string;
  partyType: PartyType;
  role: CollaborationRole;
  status: MemberStatus;
  invitedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The status a move leads to from `from`, or undefined when the move is not allowed there. */
export function statusAfterMove(from: MemberStatus, move: MemberMove): MemberStatus | undefined {
  if (move === 'revoke') return from === 'invited' || from === 'accepted' ? 'revoked' : undefined;
  if (from !== 'invited') return undefined;
  return move === 'accept' ? 'accepted' : 'declined';
}

/** Whether a member may see the collaboration: an invited party sees it (to answer), a declined or revoked one no longer does. */
export function canSee(member: CollaborationMember | undefined): boolean {
  return member !== undefined && (member.status === 'invited' || member.status === 'accepted');
}

/** Only the owner invites and revokes. */
export function canManage(member: CollaborationMember | undefined): boolean {
  return member?.status === 'accepted' && member.role === 'owner';
}

/** The owner and accepted members attach agreements; a viewer only reads. */
export function canAttach(member: CollaborationMember | undefined): boolean {
  return member?.status === 'accepted' && (member.role === 'owner' || member.role === 'member');
}

/**
 * Who may answer an invitation: an application answers its own invitation with its API token; a
 * person answers their own with their own access token (the person signed in). An application
 * never answers for a person: a person's participation is their own decision.
 */
export function mayAnswer(member: CollaborationMember, caller: { applicationId: string; personId?: string }): boolean {
  if (member.partyType === 'person') return caller.personId === member.partyId;
  return caller.personId === undefined && caller.applicationId === member.partyId;
}
