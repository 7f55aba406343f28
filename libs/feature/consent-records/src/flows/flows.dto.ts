import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import {
  CONSENT_PATHS,
  FLOW_REQUIREMENTS,
  ISO_DURATION,
  PURPOSE_MECHANISMS,
  REVOCATION_POLICIES,
  type ConsentPath,
  type FlowRequirement,
  type PurposeMechanism,
  type RevocationPolicy,
} from './flow';

const KEY = /^[a-z][a-z0-9_]{0,63}$/;
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** One purpose row: `key` is the stable identifier records and receipts refer to. */
export class FlowPurposeInput {
  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'key must be lowercase letters, digits and underscores (max 64)' })
  key!: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  label!: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsString()
  @IsIn(PURPOSE_MECHANISMS)
  mechanism?: PurposeMechanism;

  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

/** One data field the person consents to share. */
export class FlowDataFieldInput {
  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'key must be lowercase letters, digits and underscores (max 64)' })
  key!: string;

  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  label!: string;

  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

/** Title and description shown on the decision page. */
export class FlowPresentationInput {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  title!: string;

  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string;
}

/** Fields shared by create and update; on update every field is optional. */
abstract class FlowTermsFields {
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  purpose_of_use?: string;

  @IsOptional()
  @IsString()
  @Matches(ISO_DURATION, { message: 'retention_period must be an ISO 8601 duration such as P1Y' })
  retention_period?: string;

  @IsOptional()
  @IsString()
  @IsIn(REVOCATION_POLICIES)
  revocation_policy?: RevocationPolicy;

  @IsOptional()
  @IsString()
  @IsIn(CONSENT_PATHS)
  consent_path?: ConsentPath;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(FLOW_REQUIREMENTS.length)
  @ArrayUnique()
  @IsString({ each: true })
  @IsIn(FLOW_REQUIREMENTS, { each: true })
  requirements?: FlowRequirement[];

  @IsOptional()
  @IsString()
  @Matches(ISO_DURATION, { message: 'consent_duration must be an ISO 8601 duration such as P1Y' })
  consent_duration?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['https', 'http'], require_protocol: true, require_tld: false })
  policy_url?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => FlowDataFieldInput)
  data_fields?: FlowDataFieldInput[];
}

/** Body of POST /api/v1/flows: a new flow, created as a `draft` version 1. */
export class CreateFlowBody extends FlowTermsFields {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsDefined()
  @IsString()
  @Matches(LOCALE, { message: 'locale must be a BCP 47 language tag such as en or en-GB' })
  locale!: string;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => FlowPresentationInput)
  presentation!: FlowPresentationInput;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => FlowPurposeInput)
  purposes!: FlowPurposeInput[];
}

/**
 * Body of PATCH /api/v1/flows/:flow_id: edits the draft in place, or — once the latest version
 * is active — opens a new draft version carrying the change.
 */
export class UpdateFlowBody extends FlowTermsFields {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsString()
  @Matches(LOCALE, { message: 'locale must be a BCP 47 language tag such as en or en-GB' })
  locale?: string;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => FlowPresentationInput)
  presentation?: FlowPresentationInput;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => FlowPurposeInput)
  purposes?: FlowPurposeInput[];
}
