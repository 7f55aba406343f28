import { RoutedBy } from '@svc/ids';
import { PageQuery } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIdOf } from '@svc/ids';
import { IsDefined, IsEmail, IsIn, IsObject, IsOptional, IsString, Matches, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { TRIGGER_TYPES } from '../decisions/decision';

/** Body of POST /people/email_codes: ask for a one-time code (sign-up fields only to sign up). */
export class StartEmailCodeBody {
  @IsDefined()
  @IsIn(['sign_in', 'sign_up'])
  purpose!: 'sign_in' | 'sign_up';

  @IsDefined()
  @IsString()
  @MaxLength(254)
  @IsEmail({ allow_display_name: false, allow_ip_domain: false, require_tld: false })
  email!: string;

  /** Same-origin path to go to once signed in (`/people/account` by default). */
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  return_to?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  display_name?: string;

  /** ISO 3166-1 alpha-2; picks the region the account lives in. */
  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'home_country must be an ISO 3166-1 alpha-2 code' })
  home_country?: string;

  /** BCP 47 tag, e.g. `fr-FR`. */
  @IsOptional()
  @Matches(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/, { message: 'locale must be a BCP 47 language tag' })
  locale?: string;

  /** IANA time zone, e.g. `Europe/Paris`. */
  @IsOptional()
  @Matches(/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/, { message: 'time_zone must be an IANA time zone' })
  @MaxLength(64)
  time_zone?: string;
}

/** Body of POST /people/email_codes/verify. */
export class VerifyEmailCodeBody {
  @IsDefined()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'challenge_id must be the id an email code answer gave' })
  challenge_id!: string;

  @IsDefined()
  @Matches(/^\d{6}$/, { message: 'code must be the 6 digits of the email' })
  code!: string;
}

/** Body of POST /people/passkeys/authentication_options. */
export class PasskeyOptionsBody {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  return_to?: string;
}

/** A WebAuthn response as @simplewebauthn/browser returns it (checked by the verifier). */
export class WebAuthnResponseInput {
  @IsDefined() @IsString() @MaxLength(1024) id!: string;
  @IsDefined() @IsString() @MaxLength(1024) rawId!: string;
  @IsDefined() @IsIn(['public-key']) type!: 'public-key';
  @IsDefined() @IsObject() response!: Record<string, unknown>;
  @IsOptional() @IsObject() clientExtensionResults?: Record<string, unknown>;
  @IsOptional() @IsString() @MaxLength(32) authenticatorAttachment?: string;
}

/** Body of POST /people/passkeys and POST /people/passkeys/sign_in. */
export class PasskeyCeremonyBody {
  @IsDefined()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'challenge_id must be the id an options answer gave' })
  challenge_id!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => WebAuthnResponseInput)
  credential!: WebAuthnResponseInput;
}

/** An application's reference to its subject: exactly one of `external_id` or `email`. */
export class SubjectReferenceInput {
  @IsOptional() @IsString() @MinLength(1) @MaxLength(256) external_id?: string;
  @IsOptional() @IsString() @MaxLength(254) @IsEmail({ require_tld: false }) email?: string;
}

/** Body of POST /api/v1/applications/:application_id/person_links (homed by the person's region). */
@RoutedBy('person_id')
export class CreatePersonLinkBody {
  /** The person (`usr_<region>_…`), as the application learnt it from the person's sign-in. */
  @IsDefined()
  @Matches(/^usr_[a-z]+_[a-z2-7]{20}$/, { message: 'person_id must be a usr_ identifier' })
  person_id!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => SubjectReferenceInput)
  subject!: SubjectReferenceInput;
}

/** Query of GET /api/v1/applications/:application_id/person_links. */
export class ListPersonLinksQuery extends PageQuery {
  @IsOptional()
  @Matches(/^usr_[a-z]+_[a-z2-7]{20}$/, { message: 'person_id must be a usr_ identifier' })
  person_id?: string;
}

/** Query of the person's inbox page `GET /inbox` (spec, What the service does 9). */
export class PersonInboxQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @IsIn(['consent', 'approval'])
  kind?: 'consent' | 'approval';

  @IsOptional()
  @IsString()
  @IsIn(TRIGGER_TYPES)
  trigger_type?: string;

  @IsOptional()
  @IsIdOf('application')
  application_id?: string;

  /** `deadline` (ascending, default) or `newest` (created_at descending). */
  @IsOptional()
  @IsString()
  @IsIn(['deadline', 'newest'])
  sort?: 'deadline' | 'newest';
}
