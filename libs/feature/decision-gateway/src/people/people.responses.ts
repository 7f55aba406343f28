import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';
import type { Passkey, PersonLink } from './people.repository';
import { sha256Hex, type Person } from './person';

/** A person as they see themselves (`GET /people/me`, sign-in answers). */
export class PersonResponse {
  @IsString() id!: string;
  @IsIn(['person']) object!: 'person';
  @IsString() email!: string;
  @IsBoolean() email_verified!: boolean;
  @IsString() display_name!: string;
  @IsString() locale!: string;
  @IsString() time_zone!: string;
  @IsString() home_country!: string;
  @IsString() created_at!: string;
}

export function personView(person: Person): PersonResponse {
  return {
    id: person.id,
    object: 'person',
    email: person.email,
    email_verified: person.emailVerifiedAt !== null,
    display_name: person.displayName,
    locale: person.locale,
    time_zone: person.timeZone,
    home_country: person.homeCountry,
    created_at: person.createdAt.toISOString(),
  } satisfies PersonResponse;
}

/** The answer of asking for an email code. */
export class EmailCodeChallengeResponse {
  @IsString() challenge_id!: string;
  @IsString() expires_at!: string;
}

/** The answer of a sign-in (code or passkey): the person and where the page goes next. */
export class SignedInResponse {
  @ValidateNested() @Type(() => PersonResponse) person!: PersonResponse;
  @IsString() return_to!: string;
}

/** WebAuthn options for the browser, with the id of the challenge to send back. */
export class PasskeyOptionsResponse {
  @IsString() challenge_id!: string;
  @IsObject() options!: Record<string, unknown>;
}

/** A passkey of the signed-in person (never the key itself). */
export class PasskeyResponse {
  /** The credential id (base64url), also the id to remove it by. */
  @IsString() id!: string;
  @IsIn(['passkey']) object!: 'passkey';
  @IsString() device_type!: string;
  @IsBoolean() backed_up!: boolean;
  @IsString() created_at!: string;
  @IsString() @Nullable() last_used_at!: string | null;
}

export function passkeyView(passkey: Passkey): PasskeyResponse {
  return {
    id: passkey.credentialId,
    object: 'passkey',
    device_type: passkey.deviceType,
    backed_up: passkey.backedUp,
    created_at: passkey.createdAt.toISOString(),
    last_used_at: passkey.lastUsedAt?.toISOString() ?? null,
  } satisfies PasskeyResponse;
}

/** The answer of adding a passkey: `{passkey}`. */
export class PasskeyEnvelopeResponse {
  @ValidateNested() @Type(() => PasskeyResponse) passkey!: PasskeyResponse;
}

/** An application's subject reference. */
export class SubjectReferenceResponse {
  @IsIn(['external_id', 'email']) kind!: 'external_id' | 'email';
  @IsString() value!: string;
}

/** A link between an application's subject reference and a person. */
export class PersonLinkResponse {
  @IsString() id!: string;
  @IsIn(['person_link']) object!: 'person_link';
  @IsString() application_id!: string;
  @IsString() person_id!: string;
  @ValidateNested() @Type(() => SubjectReferenceResponse) subject!: SubjectReferenceResponse;
  @IsString() created_at!: string;
}

export function personLinkView(link: PersonLink): PersonLinkResponse {
  return {
    id: link.id,
    object: 'person_link',
    application_id: link.applicationId,
    person_id: link.personId,
    subject: { kind: link.subjectKind, value: link.subjectValue },
    created_at: link.createdAt.toISOString(),
  } satisfies PersonLinkResponse;
}

/** The answer of creating (201) or re-creating (200) a link: `{person_link}`. */
export class PersonLinkEnvelopeResponse {
  @ValidateNested() @Type(() => PersonLinkResponse) person_link!: PersonLinkResponse;
}

/** A link as its person sees it on the account page. */
export class OwnLinkResponse extends PersonLinkResponse {
  @IsString() application_name!: string;
}

/** The signed-in person's passkeys and links (`GET /people/me`). */
export class AccountResponse {
  @ValidateNested() @Type(() => PersonResponse) person!: PersonResponse;
  @ValidateNested({ each: true }) @Type(() => PasskeyResponse) passkeys!: PasskeyResponse[];
  @ValidateNested({ each: true }) @Type(() => OwnLinkResponse) links!: OwnLinkResponse[];
  @IsInt() passkey_count!: number;
}

/** Digest of a credential id, as events name a passkey. */
export function credentialDigest(credentialId: string): string {
  return sha256Hex(credentialId);
}
