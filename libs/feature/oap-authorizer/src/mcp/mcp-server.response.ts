import { Nullable } from '@svc/server';
import { Type } from 'class-transformer';
import { IsIn, IsString, ValidateNested } from 'class-validator';

export class ToolValueResponse {
  @IsString() amount_argument!: string;
  @IsString() currency!: string;
}

export class ToolMappingResponse {
  @IsString() name!: string;
  @IsString() action!: string;
  @IsString() scope!: string;
  @ValidateNested() @Type(() => ToolValueResponse) @Nullable() value!: ToolValueResponse | null;
}

/** The wire shape of `mcpServerView`. */
export class McpServerResponse {
  @IsString() id!: string;
  @IsIn(['mcp_server']) object!: 'mcp_server';
  @IsString() application_id!: string;
  @IsString() name!: string;
  @IsString() url!: string;
  @ValidateNested({ each: true }) @Type(() => ToolMappingResponse) tools!: ToolMappingResponse[];
  @IsString() created_at!: string;
}

/** `/.well-known/oauth-protected-resource/mcp/v1/agent` (RFC 9728). */
export class ProtectedResourceMetadataResponse {
  @IsString() resource!: string;
  @IsString({ each: true }) authorization_servers!: string[];
  @IsString({ each: true }) scopes_supported!: string[];
  @IsString({ each: true }) bearer_methods_supported!: string[];
  @IsString({ each: true }) dpop_signing_alg_values_supported!: string[];
  @IsIn([true]) dpop_bound_access_tokens_required!: true;
  @IsString() resource_name!: string;
}

/** `/.well-known/mcp-configuration`: where the gateway is and how an agent authorizes. */
export class McpConfigurationResponse {
  @IsString() mcp_endpoint!: string;
  @IsString({ each: true }) transports_supported!: string[];
  @IsString() protocol_version!: string;
  @IsString({ each: true }) protocol_versions_supported!: string[];
  @IsString() protected_resource_metadata!: string;
  @IsString() authorization_server!: string;
  @IsString() token_exchange_endpoint!: string;
  @IsString({ each: true }) token_types_supported!: string[];
}
