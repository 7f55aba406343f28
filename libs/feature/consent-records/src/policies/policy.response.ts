import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsString, ValidateNested } from 'class-validator';

/** One retention rule as answered. */
export class RetentionRuleResponse {
  @IsString() purpose!: string;
  @IsString() data_category!: string;
  /** ISO 8601 duration. */
  @IsString() retention!: string;
}

/** The wire shape of `policyView`, published in the OpenAPI document. */
export class DataPolicyResponse {
  @IsString() id!: string;
  @IsIn(['data_policy']) object!: 'data_policy';
  @IsString() application_id!: string;
  @IsIn(['draft', 'active']) status!: 'draft' | 'active';
  @IsInt() version!: number;
  @IsIn(['draft', 'active', 'superseded']) version_status!: 'draft' | 'active' | 'superseded';
  @IsInt() @Nullable() active_version!: number | null;
  @IsInt() latest_version!: number;
  @IsString() name!: string;
  @IsString() @Nullable() description!: string | null;
  @IsArray() @ValidateNested({ each: true }) @Type(() => RetentionRuleResponse) rules!: RetentionRuleResponse[];
  @IsArray() @IsString({ each: true }) flow_ids!: string[];
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
  @IsString() @Nullable() activated_at!: string | null;
}

/** One consent the retention sweep ended. */
export class SweptConsentResponse {
  @IsString() record_id!: string;
  @IsString() flow_id!: string;
  @IsString() expired_at!: string;
  @IsIn(['consent_duration', 'retention_policy', 'deal_term']) reason!: 'consent_duration' | 'retention_policy' | 'deal_term';
  @IsString() @Nullable() policy_id!: string | null;
  @IsInt() @Nullable() policy_version!: number | null;
  @IsArray() @IsString({ each: true }) purposes!: string[];
}

/** What one retention sweep did. */
export class RetentionSweepResponse {
  @IsIn(['retention_sweep']) object!: 'retention_sweep';
  @IsString() swept_at!: string;
  @IsInt() expired_count!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => SweptConsentResponse) expired!: SweptConsentResponse[];
}
