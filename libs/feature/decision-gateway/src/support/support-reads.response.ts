import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';

/** The person's profile as their home region holds it. */
export class SupportPersonResponse {
  @IsString() id!: string;
  @IsString() display_name!: string;
  @IsString() email!: string;
  @IsBoolean() email_verified!: boolean;
  @IsString() locale!: string;
  @IsString() time_zone!: string;
  @IsString() home_country!: string;
  @IsString() created_at!: string;
}

/** The transfer register entry written before the person's data crossed to the operator. */
export class SupportTransferResponse {
  /** The register entry (`xfr_…`), listed by `GET /api/v1/transfer_register`. */
  @IsString() id!: string;
  @IsString() audit_entry_id!: string;
  @IsString() from_country!: string;
  @IsString() to_country!: string;
  @IsString() lawful_basis!: string;
  @IsString() @Nullable() derogation_article!: string | null;
  /** The destination's standing under the adequacy table: eea, adequate, partial, not_adequate. */
  @IsString() adequacy_verdict!: string;
  @IsString() adequacy_table_version!: string;
}

/** A support read: the person's profile, and the crossing recorded before it was released. */
export class SupportReadResponse {
  @IsIn(['support_read']) object!: 'support_read';
  @IsString() application_id!: string;
  /** The operator: the account token's id, or the member's person id. */
  @IsString() operator!: string;
  @ValidateNested() @Type(() => SupportPersonResponse) person!: SupportPersonResponse;
  /** Null when the person is homed in the operator's region (nothing crosses). */
  @ValidateNested() @Type(() => SupportTransferResponse) @Nullable() transfer!: SupportTransferResponse | null;
  @IsString() read_at!: string;
}
