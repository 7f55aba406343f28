import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { Allow, IsBoolean, IsIn, IsInt, IsObject, IsString, ValidateNested } from 'class-validator';

/** The wire shape of `agentView`, published in the OpenAPI document. */
export class AgentResponse {
  @IsString() id!: string;
  @IsIn(['agent']) object!: 'agent';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsIn(['active', 'suspended']) status!: 'active' | 'suspended';
  @IsObject() @Nullable() agent_metadata!: object | null;
  @IsIn(['integrator_self_report']) @Nullable() agent_metadata_provenance!: 'integrator_self_report' | null;
  @IsString() @Nullable() capability_version_id!: string | null;
  @IsString() created_at!: string;
}

/** 201 of POST /api/v1/agents/{agent_id}/capabilities: the published manifest version. */
export class CapabilityVersionResponse {
  @IsIn(['capability_version']) object!: 'capability_version';
  @IsString() agent_id!: string;
  @IsString() version_id!: string;
  @IsString() manifest_sha256!: string;
  @IsString() published_at!: string;
}

export class CapabilityScopeResponse {
  @IsString() id!: string;
  @IsString() label!: string;
  @IsString() @Nullable() parent!: string | null;
  @IsBoolean() custom!: boolean;
  @IsString() status!: string;
}

/** The OIDC-A projection of a capability document. */
export class CapabilityOidcAResponse {
  @IsString({ each: true }) agent_capabilities!: string[];
  @IsInt() projection_version!: number;
  @IsString() @Nullable() agent_type!: unknown;
  @IsString() @Nullable() agent_provider!: unknown;
  @IsString() @Nullable() agent_model!: unknown;
  @IsString() @Nullable() agent_version!: unknown;
}

export class CapabilityCacheResponse {
  @IsInt() max_age_seconds!: number;
  @IsString() version_id!: string;
}

/** 200 of GET /api/v1/agents/{agent_id}/capabilities: the public capability document (canonical JSON). */
export class CapabilityDocumentResponse {
  @IsString() agent_id!: string;
  @IsString() region!: string;
  @IsString() version_id!: string;
  @IsString() published_at!: string;
  @ValidateNested({ each: true }) @Type(() => CapabilityScopeResponse) scopes!: CapabilityScopeResponse[];
  @Allow() actions!: unknown;
  @IsString({ each: true }) bounds_supported!: string[];
  @ValidateNested() @Type(() => CapabilityOidcAResponse) oidc_a!: CapabilityOidcAResponse;
  @ValidateNested() @Type(() => CapabilityCacheResponse) cache!: CapabilityCacheResponse;
}
