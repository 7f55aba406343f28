import { Type } from 'class-transformer';
import { IsArray, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import { ApplicationResponse } from './applications/application.response';

/** An application linked to the person (GET /api/v1/me). */
export class LinkedApplicationResponse {
  @IsString() application_id!: string;
  @IsString() name!: string;
  /** When the application first linked one of its subject references to the person. */
  @IsString() linked_at!: string;
}

/** The answer of GET /api/v1/me, published in the OpenAPI document. */
export class IdentityResponse {
  @IsIn(['identity']) object!: 'identity';
  /** `{type, id, scopes}` of the presented credential. */
  @IsObject() credential!: { type: string; id: string; scopes: readonly string[] };
  @ValidateNested() @Type(() => ApplicationResponse) application!: Record<string, unknown>;
  @IsString() region!: string;
  /**
   * For a person's access token: `{id, display_name, email (with the email scope), locale,
   * time_zone, home_country}` (null members when the people directory does not know them).
   */
  @IsOptional() @IsObject() person?: {
    id: string;
    display_name: string | null;
    email: string | null;
    locale: string | null;
    time_zone: string | null;
    home_country: string | null;
  };
  /** For a person's access token: the person's home country (ISO 3166-1 alpha-2). */
  @IsOptional() @IsString() @Nullable() home_country?: string | null;
  /**
   * For a person's access token: the applications that linked one of their subject references to
   * the person, `{application_id, name, linked_at}`, first link first.
   */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => LinkedApplicationResponse)
  linked_applications?: LinkedApplicationResponse[];
  /** With X-Delegation-Grant-Id: `{principal_id, delegate_id, delegation_grant_id, delegation_type}`: D acting for P under dlg_…. */
  @IsOptional() @IsObject() acting_for?: {
    principal_id: string;
    delegate_id: string;
    delegation_grant_id: string;
    delegation_type: string;
  };
  /** With X-Delegation-Grant-Id: the person who authenticated, `{id, display_name}`. */
  @IsOptional() @IsObject() delegate?: { id: string; display_name: string | null };
}
