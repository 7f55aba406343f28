import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { APPLICATION_MODES, ENVIRONMENTS, type Application, type ApplicationMode, type Environment } from './application';

/** The wire shape of `applicationView`, published in the OpenAPI document. */
export class ApplicationResponse {
  @IsString() id!: string;
  @IsIn(['application']) object!: 'application';
  @IsString() name!: string;
  @IsIn([...ENVIRONMENTS]) environment!: Environment;
  @IsString() created_at!: string;
  @IsIn([...APPLICATION_MODES]) mode!: ApplicationMode;
  @IsBoolean() capabilities_published!: boolean;
  @IsString() region!: string;
  /** Logo shown on the hosted pages: an absolute https URL, or null. */
  @IsString() @Nullable() logo_url!: string | null;
  /** Brand colour of the hosted pages (`#rrggbb`), or null; text drawn on it is chosen for contrast. */
  @IsString() @Nullable() brand_color!: string | null;
  /** The current publishable key, where the answer includes it. */
  @IsOptional() @IsString() publishable_key?: string;
}

/** An API token as listed (`tokenView`); its secret appears once, in the answer of issue. */
export class ApiTokenResponse {
  @IsString() id!: string;
  @IsIn(['api_token']) object!: 'api_token';
  @IsString() name!: string;
  @IsString({ each: true }) scopes!: string[];
  @IsString() created_at!: string;
  @IsString() @Nullable() revoked_at!: string | null;
  /** The token itself: only in the answer of issue. */
  @IsOptional() @IsString() token?: string;
}

/** The answers of issue and revoke: `{api_token}`. */
export class ApiTokenEnvelopeResponse {
  @ValidateNested() @Type(() => ApiTokenResponse) api_token!: ApiTokenResponse;
}

/** An allowed origin of the application. */
export class AllowedOriginResponse {
  @IsString() origin!: string;
  @IsString() created_at!: string;
}

/** The answer of adding an allowed origin: `{allowed_origin}`. */
export class AllowedOriginEnvelopeResponse {
  @ValidateNested() @Type(() => AllowedOriginResponse) allowed_origin!: AllowedOriginResponse;
}

/** The application's wire shape: the spec's generic resource fields plus its settings. */
export function applicationView(app: Application, publishableKey?: string): Record<string, unknown> {
  return {
    id: app.id,
    object: 'application',
    name: app.name,
    environment: app.environment,
    created_at: app.createdAt.toISOString(),
    mode: app.mode,
    capabilities_published: app.capabilitiesPublished,
    region: app.region,
    logo_url: app.logoUrl,
    brand_color: app.brandColor,
    ...(publishableKey ? { publishable_key: publishableKey } : {}),
  } satisfies ApplicationResponse;
}
