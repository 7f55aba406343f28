import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';

export class ConsentStatusSubjectResponse {
  @IsOptional() @IsString() external_id?: string;
  @IsOptional() @IsString() email?: string;
}

/** One purpose of one flow: its decision and current status. */
export class PurposeStatusResponse {
  @IsString() flow_id!: string;
  @IsInt() flow_version!: number;
  @IsString() purpose!: string;
  @IsString() decision!: string;
  @IsIn(['granted', 'declined', 'withdrawn', 'expired']) status!: string;
  @IsString() @Nullable() withdrawn_at!: string | null;
  @IsString() @Nullable() withdrawal_channel!: string | null;
  @IsString() record_id!: string;
  @IsString() record_status!: string;
  @IsString() captured_at!: string;
  @IsString() recorded_at!: string;
}

/** 200 of GET /api/v1/applications/{application_id}/consent_status. */
export class ConsentStatusResponse {
  @IsIn(['consent_status']) object!: 'consent_status';
  @IsString() application_id!: string;
  @ValidateNested() @Type(() => ConsentStatusSubjectResponse) subject!: ConsentStatusSubjectResponse;
  @ValidateNested({ each: true }) @Type(() => PurposeStatusResponse) purposes!: PurposeStatusResponse[];
}
