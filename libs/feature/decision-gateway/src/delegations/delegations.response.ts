import { IsIn, IsString } from 'class-validator';
import { Nullable } from '@svc/server';
import { DELEGATION_ACTIONS, DELEGATION_TYPES, type DelegationGrant } from './delegation-grant';
import { effectiveStatus } from './delegation-grant';

/** A delegation grant as answered to its principal or its delegate. */
export class DelegationGrantResponse {
  @IsString() id!: string;
  @IsIn(['delegation_grant']) object!: 'delegation_grant';
  @IsIn([...DELEGATION_TYPES]) type!: string;
  /** The person in whose context the delegate acts. */
  @IsString() principal_person_id!: string;
  /** The person who acts for the principal. */
  @IsString() delegate_person_id!: string;
  @IsString({ each: true }) surfaces!: string[];
  @IsIn([...DELEGATION_ACTIONS], { each: true }) actions!: string[];
  /** offered, active, revoked, or expired (past `expires_at`). */
  @IsIn(['offered', 'active', 'revoked', 'expired']) status!: string;
  @IsString() @Nullable() purpose!: string | null;
  @IsString() @Nullable() evidence_reference!: string | null;
  @IsString() expires_at!: string;
  @IsString() created_at!: string;
  @IsString() @Nullable() accepted_at!: string | null;
  @IsString() @Nullable() revoked_at!: string | null;
  /** The person (principal or delegate) who revoked the grant. */
  @IsString() @Nullable() revoked_by!: string | null;
  /** For a delegate homed in another region: the lawful basis of the crossing; null when nothing crosses. */
  @IsString() @Nullable() lawful_basis!: string | null;
  @IsString() @Nullable() derogation_article!: string | null;
  /** The transfer register entry (`xfr_…`) the offer wrote before the grant existed; null when nothing crosses. */
  @IsString() @Nullable() transfer_id!: string | null;
}

export function delegationView(grant: DelegationGrant, now: Date): DelegationGrantResponse {
  return {
    id: grant.id,
    object: 'delegation_grant',
    type: grant.type,
    principal_person_id: grant.principalPersonId,
    delegate_person_id: grant.delegatePersonId,
    surfaces: grant.surfaces,
    actions: grant.actions,
    status: effectiveStatus(grant, now),
    purpose: grant.purpose,
    evidence_reference: grant.evidenceReference,
    expires_at: grant.expiresAt.toISOString(),
    created_at: grant.createdAt.toISOString(),
    accepted_at: grant.acceptedAt?.toISOString() ?? null,
    revoked_at: grant.revokedAt?.toISOString() ?? null,
    revoked_by: grant.revokedBy,
    lawful_basis: grant.transfer?.lawfulBasis ?? null,
    derogation_article: grant.transfer?.derogationArticle ?? null,
    transfer_id: grant.transfer?.transferId ?? null,
  };
}
