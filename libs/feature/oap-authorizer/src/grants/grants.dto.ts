import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsIdOf } from '@svc/ids';
import { DECIMAL_PATTERN } from '../shared/decimal';
import { RoutedBy } from '@svc/ids';

const NAME = /^[A-Za-z0-9_.:\-/]{1,128}$/;

/** `value_bounds` of a grant request: the amount this action moves. */
export class RequestedValueBody {
  @IsString()
  @Matches(DECIMAL_PATTERN, { message: 'amount_per_action must be a decimal string such as "12.50"' })
  amount_per_action!: string;
  @IsString() @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code' }) currency!: string;
}

/** `human_register`: whether the request was displayed to the principal. */
export class HumanRegisterBody {
  @IsBoolean() displayed_to_principal!: boolean;
}

/** One delegation-chain hop (spec, Delegation chain hop). */
export class DelegationHopBody {
  @IsString() @MinLength(1) @MaxLength(256) iss!: string;
  @IsString() @MinLength(1) @MaxLength(256) sub!: string;
  @IsString() @MinLength(1) @MaxLength(256) aud!: string;
  @IsISO8601({ strict: true }) delegated_at!: string;
  @IsString() @MaxLength(2048) scope!: string;
  @IsString() @MaxLength(500) purpose!: string;
  @IsString() @MinLength(1) @MaxLength(128) jti!: string;
}

/**
 * `POST /api/v1/grants` (spec, OAP grant request). `agent_metadata` and `agent_attestation` are
 * checked by their own parsers so their errors carry the spec's reason codes. Extensions of ours:
 * `authority_id` (which authority, when the agent holds several), `purpose`, `jurisdiction` and
 * `delegation_chain` (steps 11 and 14).
 */
@RoutedBy('agent_id', 'authority_id')
export class GrantRequestBody {
  @IsIdOf('agent') agent_id!: string;
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{43}$/, { message: 'agent_dpop_jkt must be a base64url SHA-256 thumbprint (43 characters)' })
  agent_dpop_jkt!: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: 'each scope must be 1-128 of A-Z a-z 0-9 _ . : - /' })
  scope!: string[];
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Matches(NAME, { each: true, message: 'each action must be 1-128 of A-Z a-z 0-9 _ . : - /' })
  actions!: string[];
  @IsISO8601({ strict: true }) valid_until!: string;
  @IsOptional() @ValidateNested() @Type(() => RequestedValueBody) value_bounds?: RequestedValueBody;
  @IsOptional() @ValidateNested() @Type(() => HumanRegisterBody) human_register?: HumanRegisterBody;
  @IsOptional() @IsString() agent_credential?: string;
  @IsOptional() @IsObject() agent_metadata?: Record<string, unknown>;
  @IsOptional() @IsObject() agent_attestation?: Record<string, unknown>;
  @IsOptional() @IsIdOf('authority') authority_id?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) purpose?: string;
  @IsOptional() @IsString() @Matches(/^[A-Z]{2}$/, { message: 'jurisdiction must be ISO 3166-1 alpha-2' }) jurisdiction?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => DelegationHopBody)
  delegation_chain?: DelegationHopBody[];
}

/** `POST /api/v1/grants/:grant_id/attestation`. The block is checked by its own parser (spec codes). */
export class RefreshAttestationBody {
  @IsObject() agent_attestation!: Record<string, unknown>;
}
