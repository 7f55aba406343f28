import { Nullable } from '@svc/server';
import { IsIn, IsObject, IsString } from 'class-validator';

/** The wire shape of `grantView`, published in the OpenAPI document. */
export class GrantResponse {
  @IsString() id!: string;
  @IsIn(['grant']) object!: 'grant';
  @IsString() agent_id!: string;
  @IsString() authority_id!: string;
  @IsString({ each: true }) scope!: string[];
  @IsString({ each: true }) actions!: string[];
  /** `{amount, currency}` of a value-bounded grant. */
  @IsObject() @Nullable() value!: { amount: string; currency: string | null } | null;
  @IsString() valid_until!: string;
  @IsIn(['active', 'revoked']) status!: 'active' | 'revoked';
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
}
