import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { LivenessResponse } from '../attestations/attestation.response';
import { DEFAULT_SILENT_AFTER_SECONDS, livenessView, type AttesterStatus, type TrustedAttester } from './attester';

/** The wire shape of `attesterView` (`trusted_attester`), published in the OpenAPI document. */
export class TrustedAttesterResponse {
  @IsString() id!: string;
  @IsIn(['trusted_attester']) object!: 'trusted_attester';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsIn(['active', 'suspended', 'destroyed']) status!: AttesterStatus;
  @IsString({ each: true }) permissions!: string[];
  @IsString() @Nullable() scoped_application_id!: string | null;
  /** Set while the rotated-out token still authenticates. */
  @IsString() @Nullable() previous_token_expires_at!: string | null | undefined;
  @IsString() created_at!: string;
  @IsString() @Nullable() rotated_at!: string | null;
  @IsString() @Nullable() suspended_at!: string | null;
  @IsString() @Nullable() destroyed_at!: string | null;
  @ValidateNested() @Type(() => LivenessResponse) liveness!: LivenessResponse;
  /** The attester token `tat_<region>_…`: only in the answers of create and rotate. */
  @IsOptional() @IsString() token?: string;
}

/** The answers of the single-attester routes: `{trusted_attester}`. */
export class TrustedAttesterEnvelopeResponse {
  @ValidateNested() @Type(() => TrustedAttesterResponse) trusted_attester!: TrustedAttesterResponse;
}

/** `elevationView` (`elevation_request`): an attester's request for `revocations:trigger`. */
export class ElevationRequestResponse {
  @IsString() id!: string;
  @IsIn(['elevation_request']) object!: 'elevation_request';
  @IsString() attester_id!: string;
  @IsString() permission!: string;
  @IsString() rationale!: string;
  @IsIn(['pending', 'granted', 'rejected']) status!: string;
  @IsString() created_at!: string;
  @IsString() @Nullable() decided_at!: string | null;
}

/** 201 of POST …/{attester_id}/elevation_requests: `{elevation_request}`. */
export class ElevationRequestEnvelopeResponse {
  @ValidateNested() @Type(() => ElevationRequestResponse) elevation_request!: ElevationRequestResponse;
}

/** The attester's wire shape; `now` decides whether the previous slot is still live and the engine silent. */
export function attesterView(
  attester: TrustedAttester,
  now: Date,
  silentAfterSeconds = DEFAULT_SILENT_AFTER_SECONDS,
): Record<string, unknown> {
  const overlapLive = attester.previousTokenExpiresAt !== null && attester.previousTokenExpiresAt.getTime() > now.getTime();
  return {
    id: attester.id,
    object: 'trusted_attester',
    application_id: attester.applicationId,
    name: attester.name,
    status: attester.status,
    permissions: attester.permissions,
    scoped_application_id: attester.scopeApplicationId,
    previous_token_expires_at: overlapLive ? attester.previousTokenExpiresAt?.toISOString() : null,
    created_at: attester.createdAt.toISOString(),
    rotated_at: attester.rotatedAt?.toISOString() ?? null,
    suspended_at: attester.suspendedAt?.toISOString() ?? null,
    destroyed_at: attester.destroyedAt?.toISOString() ?? null,
    liveness: livenessView(attester, now, silentAfterSeconds),
  } satisfies TrustedAttesterResponse;
}
