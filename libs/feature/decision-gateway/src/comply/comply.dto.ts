import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '@svc/server';
import { CHANGE_REQUEST_STATUSES, GOVERNED_ACTIONS, MAX_ROLE_ACTORS } from './governance';

const ACTOR = /^(api_token_[a-z2-7]{20}|usr_[a-z]{2,3}_[a-z2-7]{20})$/;
const ACTOR_MESSAGE = { each: true, message: 'an actor is an api_token_… or usr_… id' } as const;

/** Body of `PUT /api/v1/modules/:regime`: enable or disable a regime and tighten its rules. */
export class ModuleChangeBody {
  @IsDefined() @IsBoolean() enabled!: boolean;
  /** Age from which a person's own consent counts; at least the regime's floor (GDPR 13, CCPA 16, LGPD 12, PIPL 14), at most 21. */
  @IsOptional() @IsInt() @Min(12) @Max(21) minimum_age?: number;
  /** Longest retention a flow may declare (ISO 8601 duration, e.g. `P18M`). */
  @IsOptional()
  @IsString()
  @MaxLength(32)
  @Matches(/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/, {
    message: 'retention_ceiling must be an ISO 8601 duration',
  })
  retention_ceiling?: string;
  /** Purpose keys this application also treats as sensitive (the regime's own are always included). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { each: true, message: 'sensitive_purposes must hold purpose keys' })
  sensitive_purposes?: string[];
  /** Why the change is made; shown to the approver and kept with the change request. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) reason?: string;
}

/** Who holds each governed action; absent or null: every credential of the application. */
export class GovernanceRolesInput {
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROLE_ACTORS)
  @IsString({ each: true })
  @Matches(ACTOR, ACTOR_MESSAGE)
  activate_flows?: string[] | null;
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROLE_ACTORS)
  @IsString({ each: true })
  @Matches(ACTOR, ACTOR_MESSAGE)
  change_modules?: string[] | null;
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROLE_ACTORS)
  @IsString({ each: true })
  @Matches(ACTOR, ACTOR_MESSAGE)
  rotate_keys?: string[] | null;
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ROLE_ACTORS)
  @IsString({ each: true })
  @Matches(ACTOR, ACTOR_MESSAGE)
  change_governance?: string[] | null;
}

/** Body of `PUT /api/v1/governance`: the whole policy (it replaces the current one). */
export class GovernancePolicyBody {
  @IsDefined() @IsObject() @ValidateNested() @Type(() => GovernanceRolesInput) roles!: GovernanceRolesInput;
  /** Actions whose every change needs a second, different approver. */
  @IsDefined() @IsArray() @ArrayMaxSize(GOVERNED_ACTIONS.length) @IsIn(GOVERNED_ACTIONS, { each: true }) four_eyes!: string[];
  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) reason?: string;
}

/** Body of `POST /api/v1/governance/change_requests`: ask a second approver ahead of an activation or a key rotation. */
export class ChangeRequestBody {
  @IsDefined() @IsIn(['activate_flows', 'rotate_keys']) action!: 'activate_flows' | 'rotate_keys';
  /** The flow id (activate_flows) or `api_tokens` (rotate_keys). */
  @IsDefined() @IsString() @MinLength(1) @MaxLength(64) target!: string;
  /** activate_flows: the flow version the approval covers (its latest draft). */
  @IsOptional() @IsInt() @Min(1) @Max(1_000_000) version?: number;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(500) reason?: string;
}

/** Query of `GET /api/v1/governance/change_requests`. */
export class ChangeRequestQuery extends PageQuery {
  @IsOptional() @IsIn(CHANGE_REQUEST_STATUSES) status?: string;
  @IsOptional() @IsIn(GOVERNED_ACTIONS) action?: string;
}
