import { IsEmail, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

/** Query of GET …/consent_status: exactly one of `subject[external_id]` and `subject[email]`. */
export class ConsentStatusQuery {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  'subject[external_id]'?: string;

  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsEmail()
  'subject[email]'?: string;
}
