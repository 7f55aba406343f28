import { IsDefined, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import {
  MAX_POLICY_ENGINE_TIMEOUT_MS,
  MAX_POLICY_ENGINE_URL_LENGTH,
  MIN_POLICY_ENGINE_TIMEOUT_MS,
  POLICY_ENGINE_CREDENTIAL_TYPES,
  type PolicyEngineCredentialType,
} from './policy-engine';

/** `PUT /api/v1/oap/attestations/policy_engine`: the application's AuthZEN 1.0 engine (creates or replaces it). */
export class SetPolicyEngineBody {
  /** The PDP base URL (`/access/v1/evaluation` is appended); https (development: also http://localhost, http://127.0.0.1). */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_POLICY_ENGINE_URL_LENGTH)
  url!: string;

  /** The application's trusted attester (`tatr_…`, active, with `attestations:submit`) in whose name the engine's answers are witnessed. */
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  attester_id!: string;

  /** `none` (default), `bearer` (`Authorization: Bearer <credential>`) or `header` (`<credential_header>: <credential>`). */
  @IsOptional()
  @IsString()
  @IsIn(POLICY_ENGINE_CREDENTIAL_TYPES, { message: `credential_type must be one of ${POLICY_ENGINE_CREDENTIAL_TYPES.join(', ')}` })
  credential_type?: PolicyEngineCredentialType;

  /** The secret the engine expects; stored encrypted, never returned. Required unless credential_type is none. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(4096)
  credential?: string;

  /** Header name for credential_type `header`, e.g. `x-api-key`. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  credential_header?: string;

  /** Deadline of one engine call, ms (default 2 000; 100–10 000). An engine slower than this has not decided: the grant is denied. */
  @IsOptional()
  @IsInt()
  @Min(MIN_POLICY_ENGINE_TIMEOUT_MS)
  @Max(MAX_POLICY_ENGINE_TIMEOUT_MS)
  timeout_ms?: number;
}
