import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { MAILING_PROVIDERS, MAX_API_BASE_URL_LENGTH } from './mailing-audience';
import { RoutedBy } from '@svc/ids';

/** Most purposes one integration maps (permissions or tags). */
export const MAX_MAPPED_PURPOSES = 50;
/** Most tags one purpose state applies. */
export const MAX_TAGS_PER_STATE = 10;

const PURPOSE_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** A purpose of the flow written to one of the audience's marketing permissions. */
export class PermissionMappingInput {
  @IsDefined()
  @IsString()
  @Matches(PURPOSE_KEY)
  purpose!: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_-]+$/)
  marketing_permission_id!: string;
}

/** Tags made active while the purpose stands granted (`granted`), or while it is declined or withdrawn (`declined`). */
export class PurposeTagsInput {
  @IsDefined()
  @IsString()
  @Matches(PURPOSE_KEY)
  purpose!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_STATE)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(100, { each: true })
  granted?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TAGS_PER_STATE)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(100, { each: true })
  declined?: string[];
}

/** Body of POST /api/v1/mailing_audiences. */
@RoutedBy('flow_id')
export class CreateMailingAudienceBody {
  @IsDefined()
  @IsString()
  @IsIn(MAILING_PROVIDERS)
  provider!: (typeof MAILING_PROVIDERS)[number];

  /** The tool's API root, e.g. `https://us21.api.mailchimp.com/3.0`; https (development applications: also http on localhost). */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_API_BASE_URL_LENGTH)
  api_base_url!: string;

  /** Stored encrypted; never returned or logged. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  @Matches(/^[\x21-\x7e]+$/)
  api_key!: string;

  /** The audience (list) id in the tool. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_-]+$/)
  list_id!: string;

  @IsDefined()
  @IsIdOf('flow')
  flow_id!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_MAPPED_PURPOSES)
  @ValidateNested({ each: true })
  @Type(() => PermissionMappingInput)
  permissions!: PermissionMappingInput[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_MAPPED_PURPOSES)
  @ValidateNested({ each: true })
  @Type(() => PurposeTagsInput)
  tags?: PurposeTagsInput[];
}
