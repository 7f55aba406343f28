import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, Post } from '@nestjs/common';
import { CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { commonError } from '@svc/errors';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { oapError } from '../oap.errors';
import { DPOP_ALGORITHMS } from '../grants/dpop';
import { mcpServerView, type McpServerRecord } from './mcp-server';
import { McpConfigurationResponse, McpServerResponse, ProtectedResourceMetadataResponse } from './mcp-server.response';
import { RegisterMcpServerBody } from './mcp-servers.dto';
import { MAX_MCP_SERVERS, McpServersRepository } from './mcp-servers.repository';
import { MCP_AGENT_PATH, MCP_PROTOCOL_VERSION, PROTECTED_RESOURCE_METADATA_PATH } from './mcp-protocol';

/** Registration of upstream MCP servers (API token) and the gateway's discovery documents (anonymous). */
@Controller()
export class McpServersController {
  constructor(
    private readonly servers: McpServersRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  @ApiDoc({ summary: 'Register an upstream MCP server (Streamable HTTP) and map each of its tools to an OAP action, scope and value argument', tag: 'OAP', errors: [400, 401, 409, 422] })
  @Post('api/v1/mcp_servers')
  @ApiResponseOf(McpServerResponse, { status: 201 })
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterMcpServerBody): Promise<Record<string, unknown>> {
    const names = body.tools.map((tool) => tool.name);
    const duplicate = names.findIndex((name, index) => names.indexOf(name) !== index);
    if (duplicate >= 0) throw commonError('validation_failed', 'Each tool may be mapped once', { field: `tools[${duplicate}].name` });
    if (principal.environment !== 'development' && !body.url.startsWith('https://')) throw commonError('validation_failed', 'A production application registers https servers only', { field: 'url' });
    if ((await this.servers.count(principal.applicationId)) >= MAX_MCP_SERVERS) throw oapError('mcp_server_limit', `At most ${MAX_MCP_SERVERS} MCP servers per application`);
    const server: McpServerRecord = {
      id: randomUUID(),
      applicationId: principal.applicationId,
      environment: principal.environment,
      name: body.name,
      url: body.url,
      tools: body.tools.map((tool) => ({ name: tool.name, action: tool.action, scope: tool.scope, ...(tool.value ? { value: { amount_argument: tool.value.amount_argument, currency: tool.value.currency } } : {}) })),
      createdAt: this.clock.now(),
    };
    await this.servers.insert(server);
    return mcpServerView(server);
  }

  @ApiDoc({ summary: 'OAuth protected-resource metadata (RFC 9728) of the MCP gateway', tag: 'OAP', errors: [] })
  @Get(PROTECTED_RESOURCE_METADATA_PATH.slice(1))
  @Public()
  @ApiResponseOf(ProtectedResourceMetadataResponse)
  protectedResource(): ProtectedResourceMetadataResponse {
    const base = this.config.publicBaseUrl;
    return {
      resource: `${base}${MCP_AGENT_PATH}`,
      authorization_servers: [base],
      scopes_supported: [],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
      dpop_bound_access_tokens_required: true,
      resource_name: 'OAP MCP gateway',
    };
  }

  @ApiDoc({ summary: 'Where the MCP gateway is, its protocol revision and how an agent gets its token', tag: 'OAP', errors: [] })
  @Get('.well-known/mcp-configuration')
  @Public()
  @ApiResponseOf(McpConfigurationResponse)
  configuration(): McpConfigurationResponse {
    const base = this.config.publicBaseUrl;
    return {
      mcp_endpoint: `${base}${MCP_AGENT_PATH}`,
      transports_supported: ['streamable-http'],
      protocol_version: MCP_PROTOCOL_VERSION,
      protocol_versions_supported: [...SUPPORTED_PROTOCOL_VERSIONS],
      protected_resource_metadata: `${base}${PROTECTED_RESOURCE_METADATA_PATH}`,
      authorization_server: base,
      token_exchange_endpoint: `${base}/oauth/token/exchange`,
      token_types_supported: ['DPoP'],
    };
  }
}
