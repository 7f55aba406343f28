import { Nullable } from '@svc/server';
import { IsIn, IsInt, IsString } from 'class-validator';
import { AUTHORITY_STATUSES, type Authority, type AuthorityStatus } from './authority';

/** The wire shape of `authorityView` (its bounds fields are spread in beside these), published in the OpenAPI document. */
export class AuthorityResponse {
  @IsString() id!: string;
  @IsIn(['authority']) object!: 'authority';
  @IsString() application_id!: string;
  @IsString() agent_id!: string;
  @IsString() @Nullable() principal_id!: string | null;
  @IsIn(AUTHORITY_STATUSES) status!: AuthorityStatus;
  @IsString({ each: true }) purposes!: string[];
  @IsString() valid_from!: string;
  @IsString() valid_until!: string;
  @IsInt() cooling_off_seconds!: number;
  @IsString() @Nullable() manifest_sha256!: string | null;
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
}

/** The API view of an authority. */
export function authorityView(authority: Authority): Record<string, unknown> {
  return {
    id: authority.id,
    object: 'authority',
    application_id: authority.applicationId,
    agent_id: authority.agentId,
    principal_id: authority.principalId,
    status: authority.status,
    ...authority.bounds,
    purposes: authority.purposes,
    valid_from: authority.validFrom.toISOString(),
    valid_until: authority.validUntil.toISOString(),
    cooling_off_seconds: authority.coolingOffSeconds,
    manifest_sha256: authority.manifestSha256,
    created_at: authority.createdAt.toISOString(),
    revoked_at: authority.revokedAt?.toISOString() ?? null,
  } satisfies AuthorityResponse;
}

/** A proposed authority and the hosted page on which the person grants or declines it. */
export class AuthorityProposalResponse extends AuthorityResponse {
  @IsString() proposal_url!: string;
}
