import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Nullable } from '@svc/server';
import { AUTHZEN_EVALUATION_PATH } from '../authzen/authzen-attestation.adapter';
import { POLICY_ENGINE_CREDENTIAL_TYPES, type PolicyEngine } from './policy-engine';

/** The application's policy engine as the API shows it: never the credential itself. */
export class PolicyEngineResponse {
  @IsIn(['policy_engine']) object!: 'policy_engine';
  /** The protocol spoken: OpenID AuthZEN Authorization API 1.0, Access Evaluation API. */
  @IsIn(['authzen-1.0']) protocol!: 'authzen-1.0';
  @IsString() @JSONSchema({ examples: ['https://pdp.example.com'] }) url!: string;
  @IsString() @JSONSchema({ examples: ['https://pdp.example.com/access/v1/evaluation'] }) evaluation_url!: string;
  @IsString() attester_id!: string;
  @IsIn([...POLICY_ENGINE_CREDENTIAL_TYPES]) credential_type!: string;
  @IsString() @Nullable() credential_header!: string | null;
  /** True when a secret is stored (encrypted) for the engine. */
  @IsBoolean() credential_configured!: boolean;
  @IsInt() timeout_ms!: number;
  @IsString() created_at!: string;
  @IsString() updated_at!: string;
}

/** `{policy_engine}`. */
export class PolicyEngineEnvelopeResponse {
  @ValidateNested() @Type(() => PolicyEngineResponse) policy_engine!: PolicyEngineResponse;
}

export function policyEngineView(engine: PolicyEngine): PolicyEngineResponse {
  return {
    object: 'policy_engine',
    protocol: 'authzen-1.0',
    url: engine.baseUrl,
    evaluation_url: `${engine.baseUrl}${AUTHZEN_EVALUATION_PATH}`,
    attester_id: engine.attesterId,
    credential_type: engine.credentialType,
    credential_header: engine.credentialHeader,
    credential_configured: engine.credentialEnc !== null,
    timeout_ms: engine.timeoutMs,
    created_at: engine.createdAt.toISOString(),
    updated_at: engine.updatedAt.toISOString(),
  };
}
