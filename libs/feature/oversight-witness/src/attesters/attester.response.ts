import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
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
  /** `{last_heartbeat_at, last_heartbeat, silent_after_seconds, silent}`. */
  @IsObject() liveness!: Record<string, unknown>;
  /** The attester token `tat_<region>_…`: only in the answers of create and rotate. */
  @IsOptional() @IsString() token?: string;
}

/** The answers of the single-attester routes: `{trusted_attester}`. */
export class TrustedAttesterEnvelopeResponse {
  @ValidateNested() @Type(() => TrustedAttesterResponse) trusted_attester!: TrustedAttesterResponse;
}

/** The attester's wire shape; `now` decides whether the previous slot is still live and the engine silent. */
export function attesterView(attester: TrustedAttester, now: Date, silentAfterSeconds = DEFAULT_SILENT_AFTER_SECONDS): Record<string, unknown> {
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
