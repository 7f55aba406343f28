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
  };
}
