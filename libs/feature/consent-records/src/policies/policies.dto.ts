import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsDefined,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ISO_DURATION } from '../flows/flow';

const KEY = /^[a-z][a-z0-9_]{0,63}$/;
const FLOW_ID = /^flw_(us|eu|ap|dev)_[a-z2-7]{20}$/;

/** One retention rule of a policy. */
export class RetentionRuleInput {
  /** A purpose key of the attached flows (lowercase letters, digits, underscores). */
  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'purpose must be a purpose key: lowercase letters, digits and underscores (max 64)' })
  purpose!: string;

  /** The category of data the rule keeps, e.g. `contact_details`, `usage_history`. */
  @IsDefined()
  @IsString()
  @Matches(KEY, { message: 'data_category must be lowercase letters, digits and underscores (max 64)' })
  data_category!: string;

  /** How long the data may be kept from the capture of the consent, ISO 8601 (e.g. P30D, P1Y). */
  @IsDefined()
  @IsString()
  @Matches(ISO_DURATION, { message: 'retention must be an ISO 8601 duration such as P30D' })
  retention!: string;
}

abstract class PolicyFields {
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  description?: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  @Matches(FLOW_ID, { each: true, message: 'flow_ids must hold flow ids' })
  flow_ids?: string[];
}

/** Body of POST /api/v1/policies: a new policy, created as a `draft` version 1. */
export class CreatePolicyBody extends PolicyFields {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RetentionRuleInput)
  rules!: RetentionRuleInput[];
}

/** Body of PATCH /api/v1/policies/:policy_id: edits the draft, or opens version N+1 when the latest is active. */
export class UpdatePolicyBody extends PolicyFields {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RetentionRuleInput)
  rules?: RetentionRuleInput[];
}
