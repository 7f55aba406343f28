import { Type } from 'class-transformer';
import { IsIn, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import { AGREEMENT_STATUSES, SIGNING_OUTCOMES, type AgreementStatus, type SigningOutcome } from '../agreements/agreement';
import {
  COLLABORATION_ROLES,
  MEMBER_STATUSES,
  type Collaboration,
  type CollaborationMember,
  type CollaborationRole,
  type MemberStatus,
  type PartyType,
} from './collaboration';

/** A collaboration as one of its parties reads it. */
export class CollaborationResponse {
  /** `col_<region>_…` */
  @IsString() id!: string;
  @IsIn(['collaboration']) object!: 'collaboration';
  @IsString() name!: string;
  /** The application that created it (role `owner`). */
  @IsString() owner_application_id!: string;
  /** The caller's role in it. */
  @IsIn([...COLLABORATION_ROLES]) role!: CollaborationRole;
  /** The caller's membership: `invited` until answered, then `accepted`. */
  @IsIn(['invited', 'accepted']) membership_status!: 'invited' | 'accepted';
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
}

/** A party of a collaboration: an invitation until accepted. */
export class CollaborationMemberResponse {
  @IsIn(['collaboration_member']) object!: 'collaboration_member';
  @IsString() collaboration_id!: string;
  /** `tp_…` (an application) or `usr_…` (a person). */
  @IsString() party_id!: string;
  @IsIn(['application', 'person']) party_type!: PartyType;
  @IsIn([...COLLABORATION_ROLES]) role!: CollaborationRole;
  /** invited → accepted | declined | revoked; accepted → revoked. */
  @IsIn([...MEMBER_STATUSES]) status!: MemberStatus;
  /** The application that invited the party; null for the owner. */
  @IsString() @Nullable() invited_by!: string | null;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
}

/** One signer's answer in an agreement's history, without the signer's identity. */
export class CollaborationAgreementAnswerResponse {
  @IsString() role!: string;
  /** signed | declined | expired | countered; null while unanswered. */
  @IsIn([...SIGNING_OUTCOMES]) @Nullable() outcome!: SigningOutcome | null;
  @IsString() @Nullable() decided_at!: string | null;
}

/** An agreement attached to a collaboration, with its history. */
export class CollaborationAgreementResponse {
  @IsIn(['collaboration_agreement']) object!: 'collaboration_agreement';
  /** `agr_<region>_…` */
  @IsString() agreement_id!: string;
  @IsString() title!: string;
  @IsIn([...AGREEMENT_STATUSES]) status!: AgreementStatus;
  /** The application that attached it (the agreement's own application). */
  @IsString() attached_by!: string;
  @IsString() attached_at!: string;
  @IsString() created_at!: string;
  /** When the agreement reached its outcome; null before. */
  @IsString() @Nullable() decided_at!: string | null;
  /** Each signer's answer so far, in party order. */
  @ValidateNested({ each: true }) @Type(() => CollaborationAgreementAnswerResponse) answers!: CollaborationAgreementAnswerResponse[];
}

/** One change of a collaboration, oldest first. */
export class CollaborationEventResponse {
  @IsIn(['collaboration_event']) object!: 'collaboration_event';
  /** Position in the collaboration's history. */
  @IsString() id!: string;
  /**
   * collaboration.created, member.invited, member.accepted, member.declined, member.revoked,
   * agreement.attached, and the history of each attached agreement: agreement.created,
   * signature.signed|declined|countered|expired (actor: the party, `pty_…`),
   * agreement.activated|declined|expired|withdrawn, agreement.amendment_proposed, agreement.amended
   * and agreement.amendment_rejected|amendment_expired|amendment_withdrawn (subject: the agreement).
   */
  @IsString() type!: string;
  /** The application or person who made the change; a party (`pty_…`) for a signing answer; the agreement for what its quorum or deadline decided. */
  @IsString() actor!: string;
  /** The party or agreement it concerns; null for the collaboration itself. */
  @IsString() @Nullable() subject!: string | null;
  @IsString() created_at!: string;
}

export function collaborationView(c: Collaboration, member: CollaborationMember): CollaborationResponse {
  return {
    id: c.id,
    object: 'collaboration',
    name: c.name,
    owner_application_id: c.ownerApplicationId,
    role: member.role,
    membership_status: member.status === 'invited' ? 'invited' : 'accepted',
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function memberView(m: CollaborationMember): CollaborationMemberResponse {
  return {
    object: 'collaboration_member',
    collaboration_id: m.collaborationId,
    party_id: m.partyId,
    party_type: m.partyType,
    role: m.role,
    status: m.status,
    invited_by: m.invitedBy,
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}
