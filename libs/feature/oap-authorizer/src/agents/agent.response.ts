import { Nullable } from '@svc/server';
import { IsIn, IsObject, IsString } from 'class-validator';

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
