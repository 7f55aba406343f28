import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, ValidateNested } from 'class-validator';
import { Nullable } from '@svc/server';
import type { Agent, CapabilityVersion } from './agent';

/** The agent's published capability manifest (current version). */
export class CapabilityManifestResponse {
  @IsString() version_id!: string;
  /** SHA-256 hex of the canonical manifest. */
  @IsString() manifest_sha256!: string;
  @IsString({ each: true }) scopes!: string[];
  @IsString({ each: true }) actions!: string[];
  @IsString() published_at!: string;
}

/** An agent identity: who the agent is, who runs which model, its DPoP key and its manifest. */
export class AgentIdentityResponse {
  @IsString() id!: string;
  @IsIn(['agent_identity']) object!: 'agent_identity';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsString() @Nullable() provider!: string | null;
  @IsString() @Nullable() model!: string | null;
  @IsString() @Nullable() agent_type!: string | null;
  /** RFC 7638 thumbprint of the agent's DPoP key. */
  @IsString() @Nullable() dpop_jkt!: string | null;
  @IsIn(['active', 'suspended']) status!: string;
  @ValidateNested() @Type(() => CapabilityManifestResponse) @Nullable() capability_manifest!: CapabilityManifestResponse | null;
  @IsString() created_at!: string;
}

/** An agent an application runs. */
export class ApplicationAgentResponse {
  @IsIn(['application_agent']) object!: 'application_agent';
  @IsString() application_id!: string;
  @IsString() agent_id!: string;
  @IsString() name!: string;
  @IsIn(['active', 'suspended']) status!: string;
  @IsString() @Nullable() capability_version_id!: string | null;
  /** Scopes of the current capability manifest (0 when none is published). */
  @IsInt() scope_count!: number;
  @IsString() created_at!: string;
}

export function agentIdentityView(agent: Agent, manifest: CapabilityVersion | undefined): AgentIdentityResponse {
  return {
    id: agent.id,
    object: 'agent_identity',
    application_id: agent.applicationId,
    name: agent.name,
    provider: agent.metadata?.agent_provider ?? null,
    model: agent.metadata?.agent_model ?? null,
    agent_type: agent.metadata?.agent_type ?? null,
    dpop_jkt: agent.dpopJkt,
    status: agent.status,
    capability_manifest: manifest
      ? {
          version_id: manifest.versionId,
          manifest_sha256: manifest.manifestSha256,
          scopes: manifest.scopes.map((s) => s.id),
          actions: manifest.actions,
          published_at: manifest.publishedAt.toISOString(),
        }
      : null,
    created_at: agent.createdAt.toISOString(),
  };
}
