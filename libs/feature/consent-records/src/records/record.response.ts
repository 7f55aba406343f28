import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';

/** One purpose of a consent record with its own status. */
export class ConsentRecordPurposeResponse {
  @IsString() purpose!: string;
  @IsIn(['granted', 'declined']) decision!: string;
  @IsIn(['granted', 'declined', 'withdrawn', 'expired']) status!: string;
  @IsString() @Nullable() withdrawn_at!: string | null;
  @IsString() @Nullable() withdrawal_channel!: string | null;
}

/** The wire shape of `recordView` (`consent_record`), published in the OpenAPI document. */
export class ConsentRecordResponse {
  @IsString() id!: string;
  @IsIn(['consent_record']) object!: 'consent_record';
  @IsString() application_id!: string;
  @IsString() flow_id!: string;
  @IsInt() flow_version!: number;
  @IsIn(['active', 'withdrawn', 'expired', 'superseded']) status!: string;
  /** `{email, external_id}`, either may be null. */
  @IsObject() subject!: object;
  @ValidateNested({ each: true }) @Type(() => ConsentRecordPurposeResponse) purposes!: ConsentRecordPurposeResponse[];
  /** Per purpose key: the decision as captured. */
  @IsObject() decisions!: object;
  @IsString() @Nullable() notice_digest!: string | null;
  @IsString() collection_channel!: string;
  @IsString() captured_at!: string;
  @IsString() recorded_at!: string;
  @IsString() @Nullable() expires_at!: string | null;
  @IsString() @Nullable() idempotency_key!: string | null;
  @IsString() @Nullable() previous_record_id!: string | null;
  @IsString({ each: true }) withdrawn_purposes!: string[];
  /** Decision-session records: `{principal_binding}`; null otherwise. */
  @IsObject() @Nullable() evidence!: { principal_binding: string } | null;
}
