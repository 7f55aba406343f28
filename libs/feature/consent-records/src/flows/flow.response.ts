import { Nullable } from '@svc/server';
import { IsBoolean, IsIn, IsInt, IsString } from 'class-validator';

/** The wire shape of `flowView` (the version's terms are spread in beside these), published in the OpenAPI document. */
export class FlowResponse {
  @IsString() id!: string;
  @IsIn(['flow']) object!: 'flow';
  @IsString() application_id!: string;
  @IsIn(['draft', 'active']) status!: 'draft' | 'active';
  @IsInt() version!: number;
  @IsString() version_status!: string;
  @IsInt() @Nullable() active_version!: number | null;
  @IsInt() latest_version!: number;
  @IsBoolean() capturable_in_own_form!: boolean;
  @IsString() @Nullable() flow_url!: string | null;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
  @IsString() @Nullable() activated_at!: string | null;
}
