import { CrossBorder, IsIdOf } from '@svc/ids';
import { Type } from 'class-transformer';
import { IsDefined, IsEmail, IsObject, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';

/** The application's reference of the person: exactly one of `external_id` or `email`. */
export class DirectorySubjectInput {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(256) external_id?: string;
  @IsOptional() @IsString() @MaxLength(254) @IsEmail({ require_tld: false }) email?: string;
}

/**
 * Body of POST /api/v1/cross_border/consent_status. A cross-border question: the application
 * and the person may be homed in any region (the person's id is the question, not a write), and
 * the reference is hashed at once and never stored or forwarded.
 */
@CrossBorder()
export class CrossBorderStatusBody {
  /** The application the person's records belong to (`tp_<region>_…`, any region). */
  @IsDefined() @IsIdOf('application') application_id!: string;

  /** Purpose key of one of that application's flows. */
  @IsDefined()
  @IsString()
  @Matches(/^[a-z0-9_][a-z0-9_.-]{0,63}$/, { message: 'purpose must be a purpose key (lower-case letters, digits, _ . -)' })
  purpose!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => DirectorySubjectInput)
  subject!: DirectorySubjectInput;
}
