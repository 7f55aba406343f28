import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { API_TOKEN_SCOPES } from '@svc/auth';
import { Nullable } from '@svc/server';
import { APPLICATION_MODES, type ApplicationMode } from './application';

export class AllowedOriginInput {
  /** Scheme, host and optional port only, e.g. `https://app.example.com`. */
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  origin!: string;
}

/** Body of POST /api/v1/applications/:application_id/allowed_origins. */
export class AddAllowedOriginBody {
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AllowedOriginInput)
  allowed_origin!: AllowedOriginInput;
}

/** Query of DELETE /api/v1/applications/:application_id/allowed_origins. */
export class RemoveAllowedOriginQuery {
  @IsDefined()
  @IsString()
  @MaxLength(2048)
  origin!: string;
}

/** Body of PATCH /api/v1/applications/:application_id. */
export class UpdateApplicationBody {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsString()
  @IsIn(APPLICATION_MODES)
  mode?: ApplicationMode;

  @IsOptional()
  @IsBoolean()
  capabilities_published?: boolean;

  /** Logo of the hosted pages: an absolute https URL (at most 2048 characters); null removes it. */
  @IsOptional()
  @Nullable()
  @IsString()
  @MaxLength(4096)
  logo_url?: string | null;

  /** Brand colour of the hosted pages, `#rrggbb` or `#rgb`; null removes it. */
  @IsOptional()
  @Nullable()
  @IsString()
  @MaxLength(16)
  brand_color?: string | null;
}

/** Body of POST /api/v1/applications/:application_id/api_tokens. */
export class IssueApiTokenBody {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(API_TOKEN_SCOPES.length)
  @IsString({ each: true })
  @IsIn(API_TOKEN_SCOPES, { each: true })
  scopes?: string[];
}
