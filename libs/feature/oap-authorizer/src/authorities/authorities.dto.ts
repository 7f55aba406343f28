import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsIdOf } from '@svc/ids';
import { DECIMAL_PATTERN } from '../shared/decimal';
import { RoutedBy } from '@svc/ids';

/** OpenAPI of a bound: never empty (spec: absence is never unlimited, and neither is `{}`). */
const BOUND_SCHEMA = {
  minProperties: 1,
  description:
    'At least one constraint, or `unrestricted: true` to opt out of this bound explicitly. `{}` and arrays are refused (422), null (400).',
};

const NAME = /^[A-Za-z0-9_.:\-/]{1,128}(:\*)?$/;
const NAME_MESSAGE = 'each entry must be 1-128 of A-Z a-z 0-9 _ . : - /, optionally ending in :*';

@JSONSchema(BOUND_SCHEMA)
class ScopeBoundsBody {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  allowed?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  denied?: string[];
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

@JSONSchema(BOUND_SCHEMA)
class ActionBoundsBody {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  allowed?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  prohibited?: string[];
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000_000) max_actions?: number;
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

@JSONSchema(BOUND_SCHEMA)
class ValueBoundsBody {
  @IsOptional() @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code' }) currency?: string;
  @IsOptional() @IsString() @Matches(DECIMAL_PATTERN, { message: 'per_action must be a decimal string' }) per_action?: string;
  @IsOptional() @IsString() @Matches(DECIMAL_PATTERN, { message: 'per_month must be a decimal string' }) per_month?: string;
  @IsOptional() @IsString() @Matches(DECIMAL_PATTERN, { message: 'aggregate must be a decimal string' }) aggregate?: string;
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

class TimeBucketBody {
  @IsIn(['minute', 'hour', 'day']) period!: 'minute' | 'hour' | 'day';
  @IsInt() @Min(1) @Max(1_000_000) max!: number;
}

@JSONSchema(BOUND_SCHEMA)
class TimeBoundsBody {
  @IsOptional() @IsISO8601({ strict: true }) not_before?: string;
  @IsOptional() @IsISO8601({ strict: true }) not_after?: string;
  @IsOptional()
  @IsArray()
  @ArrayMinSize(2)
  @ArrayMaxSize(2)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(24, { each: true })
  hours_utc?: [number, number];
  @IsOptional() @IsArray() @ArrayMaxSize(7) @IsInt({ each: true }) @Min(1, { each: true }) @Max(7, { each: true }) days?: number[];
  @IsOptional() @IsArray() @ArrayMaxSize(3) @ValidateNested({ each: true }) @Type(() => TimeBucketBody) buckets?: TimeBucketBody[];
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

@JSONSchema({ description: 'When to ask the principal(s) and the quorum that decides. `{}` and arrays are refused (422), null (400).' })
class EscalationBoundsBody {
  @IsOptional() @IsString() @Matches(DECIMAL_PATTERN, { message: 'amount_over must be a decimal string' }) amount_over?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  actions?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  scopes?: string[];
  @IsOptional() @IsBoolean() always?: boolean;
  @IsIn(['all', 'majority', 'threshold']) quorum_type!: 'all' | 'majority' | 'threshold';
  @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @Matches(NAME, { each: true, message: NAME_MESSAGE }) approvers!: string[];
  @IsOptional() @IsInt() @Min(1) @Max(50) threshold?: number;
  @IsOptional() @IsInt() @Min(60) @Max(7 * 24 * 3600) approval_ttl_seconds?: number;
}

@JSONSchema(BOUND_SCHEMA)
class ReputationBoundsBody {
  @IsOptional() @IsInt() @Min(0) @Max(100) min_trust_score?: number;
  @IsOptional() @IsInt() @Min(0) @Max(1_000_000) min_vouch_count?: number;
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

@JSONSchema(BOUND_SCHEMA)
class SequenceBoundsBody {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: NAME_MESSAGE })
  ordering?: string[];
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) max_per_minute?: number;
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) max_repetitions?: number;
  @IsOptional() @IsInt() @Min(0) @Max(16) max_continuation_depth?: number;
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

@JSONSchema(BOUND_SCHEMA)
class JurisdictionBoundsBody {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(250)
  @IsString({ each: true })
  @Matches(/^[A-Z]{2}$/, { each: true, message: 'each jurisdiction must be ISO 3166-1 alpha-2' })
  allowed?: string[];
  @IsOptional() @IsBoolean() unrestricted?: boolean;
}

/** `POST /api/v1/authorities/proposals`: the terms the application proposes; the person who grants them becomes the principal. */
@RoutedBy('agent_id')
export class ProposeAuthorityBody {
  @IsIdOf('agent') agent_id!: string;
  @IsOptional() @ValidateNested() @Type(() => ScopeBoundsBody) scope_bounds?: ScopeBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => ActionBoundsBody) action_bounds?: ActionBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => ValueBoundsBody) value_bounds?: ValueBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => TimeBoundsBody) time_bounds?: TimeBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => EscalationBoundsBody) escalation_bounds?: EscalationBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => ReputationBoundsBody) reputation_bounds?: ReputationBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => SequenceBoundsBody) oap_sequence_bounds?: SequenceBoundsBody;
  @IsOptional() @ValidateNested() @Type(() => JurisdictionBoundsBody) jurisdiction_bounds?: JurisdictionBoundsBody;
  @IsOptional() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(200, { each: true }) purposes?: string[];
  @IsOptional() @IsISO8601({ strict: true }) valid_from?: string;
  @IsISO8601({ strict: true }) valid_until!: string;
  @IsOptional() @IsInt() @Min(0) @Max(30 * 24 * 3600) cooling_off_seconds?: number;
}

/** `POST /api/v1/authorities`: any subset of the eight bounds; absent means not configured. */
@RoutedBy('agent_id')
export class CreateAuthorityBody extends ProposeAuthorityBody {
  @IsString() @MinLength(1) @MaxLength(200) principal_id!: string;
}

/** Body of suspend / resume / revoke. */
export class AuthorityTransitionBody {
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
}
