import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

/** A delegate who withdrew for the person: "by D acting for P under dlg_…". */
export class WithdrawalActedByResponse {
  /** The delegate (`usr_…`) who acted. */
  @IsString() delegate_id!: string;
  /** The person (`usr_…`) the delegate acted for. */
  @IsString() principal_id!: string;
  /** The delegation grant (`dlg_<region>_…`) the delegate acted under. */
  @IsString() delegation_grant_id!: string;
  @IsIn(['guardian', 'caregiver', 'power_of_attorney', 'it_admin', 'peer']) delegation_type!: string;
}

/** One purpose of a consent record with its own status. */
export class ConsentRecordPurposeResponse {
  @IsString() purpose!: string;
  @IsIn(['granted', 'declined']) decision!: string;
  @IsIn(['granted', 'declined', 'withdrawn', 'expired']) status!: string;
  @IsString() @Nullable() withdrawn_at!: string | null;
  @IsString() @Nullable() withdrawal_channel!: string | null;
  /** Present only when a delegate withdrew for the person. */
  @IsOptional() @ValidateNested() @Type(() => WithdrawalActedByResponse) withdrawal_acted_by?: WithdrawalActedByResponse;
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
