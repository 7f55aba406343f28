import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Nullable } from '@svc/server';

export class VoucherResponse {
  @IsIn(['application', 'person', 'attester']) @JSONSchema({ examples: ['application'] }) type!: 'application' | 'person' | 'attester';
  @IsString() @JSONSchema({ examples: ['tp_us_abcdefghijklmnopqrst'] }) id!: string;
}

/** A vouch (Verify surface). */
export class VouchResponse {
  @IsIn(['vouch']) object!: 'vouch';
  @IsString() @JSONSchema({ examples: ['vch_us_abcdefghijklmnopqrst'] }) id!: string;
  @ValidateNested() @Type(() => VoucherResponse) voucher!: VoucherResponse;
  @IsString() @JSONSchema({ examples: ['agent_us_abcdefghijklmnopqrst'] }) subject!: string;
  @IsIn(['agent', 'person']) subject_type!: 'agent' | 'person';
  @IsInt() @JSONSchema({ examples: [30] }) weight!: number;
  @IsString() @JSONSchema({ examples: ['successful_transactions'] }) reason_code!: string;
  @IsString() @JSONSchema({ examples: ['2027-01-01T00:00:00.000Z'] }) expires_at!: string;
  @IsIn(['active', 'revoked', 'expired']) status!: 'active' | 'revoked' | 'expired';
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
}

/** The inputs the score was computed from. */
export class TrustScoreInputsResponse {
  @IsInt() @JSONSchema({ examples: [2] }) vouch_count!: number;
  @IsInt() @JSONSchema({ examples: [60] }) vouch_weight_total!: number;
  @IsInt() @JSONSchema({ examples: [3] }) allowed_grants_90d!: number;
  @IsInt()
  @JSONSchema({ examples: [2], description: "Agent attestations accepted with the agent's grants in the last 90 days (0 for a person)." })
  attestations_90d!: number;
  @IsInt() @JSONSchema({ examples: [0] }) revoked_grants_90d!: number;
  @IsInt() @JSONSchema({ examples: [1] }) denials_30d!: number;
}

/** GET /api/v1/trust_scores/{subject}. */
export class TrustScoreResponse {
  @IsIn(['trust_score']) object!: 'trust_score';
  @IsString() @JSONSchema({ examples: ['agent_us_abcdefghijklmnopqrst'] }) subject!: string;
  @IsInt() @JSONSchema({ examples: [61], description: 'Integer 0–100, of `formula` over `inputs`.' }) score!: number;
  @IsInt() vouch_count!: number;
  @ValidateNested() @Type(() => TrustScoreInputsResponse) inputs!: TrustScoreInputsResponse;
  @IsString() formula!: string;
  @IsString() formula_version!: string;
  @IsString() computed_at!: string;
}
