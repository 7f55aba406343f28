import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { DomainError, commonError } from '@svc/errors';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { oapError } from '../oap.errors';
import { DPOP_ALGORITHMS } from '../grants/dpop';
import { mcpSdk } from './mcp-sdk';
import { mcpServerView, type McpServerRecord } from './mcp-server';
import { McpConfigurationResponse, McpServerResponse, ProtectedResourceMetadataResponse } from './mcp-server.response';
import { RegisterMcpServerBody } from './mcp-servers.dto';
import { MAX_MCP_SERVERS, McpServersRepository } from './mcp-servers.repository';
import { MCP_AGENT_PATH, MCP_PROTOCOL_VERSION, PROTECTED_RESOURCE_METADATA_PATH } from './mcp-protocol';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Registration of upstream MCP servers (API token) and the gateway's discovery documents (anonymous). */
@Controller()
export class McpServersController {
  constructor(
    private readonly servers: McpServersRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  @ApiDoc({
    summary: 'Register an upstream MCP server (Streamable HTTP) and map each of its tools to an OAP action, scope and value argument',
    tag: 'OAP',
    errors: [400, 401, 409, 422],
  })
  @Post('api/v1/mcp_servers')
  @ApiResponseOf(McpServerResponse, { status: 201 })
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterMcpServerBody): Promise<Record<string, unknown>> {
    const names = body.tools.map((tool) => tool.name);
    const duplicate = names.findIndex((name, index) => names.indexOf(name) !== index);
    if (duplicate >= 0) throw commonError('validation_failed', 'Each tool may be mapped once', { field: `tools[${duplicate}].name` });
    if (principal.environment !== 'development' && !body.url.startsWith('https://'))
      throw commonError('validation_failed', 'A production application registers https servers only', { field: 'url' });
    if ((await this.servers.count(principal.applicationId)) >= MAX_MCP_SERVERS)
      throw oapError('mcp_server_limit', `At most ${MAX_MCP_SERVERS} MCP servers per application`);
    const server: McpServerRecord = {
      id: randomUUID(),
      applicationId: principal.applicationId,
      environment: principal.environment,
      name: body.name,
      url: body.url,
      tools: body.tools.map((tool) => ({
        name: tool.name,
        action: tool.action,
        scope: tool.scope,
        ...(tool.value ? { value: { amount_argument: tool.value.amount_argument, currency: tool.value.currency } } : {}),
      })),
      createdAt: this.clock.now(),
    };
    await this.servers.insert(server);
    return mcpServerView(server);
  }

  @ApiDoc({
    summary: "List the application's upstream MCP servers, oldest first",
    tag: 'OAP',
    response: 'Page of McpServer: data, has_more, next_cursor',
    errors: [400, 401],
  })
  @Get('api/v1/mcp_servers')
  @ApiResponseOf(McpServerResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    if (after && (!UUID.test(after.id) || Number.isNaN(Date.parse(after.created_at))))
      throw new DomainError('invalid', 'invalid_cursor', 'cursor is not a cursor returned by this list', { field: 'cursor' });
    const rows = await this.servers.page(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, mcpServerView, (server) => ({ created_at: server.createdAt.toISOString(), id: server.id }));
  }

  @ApiDoc({ summary: 'Read an upstream MCP server of the application', tag: 'OAP', errors: [401, 404] })
  @Get('api/v1/mcp_servers/:mcp_server_id')
  @ApiResponseOf(McpServerResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('mcp_server_id') id: string): Promise<Record<string, unknown>> {
    const server = UUID.test(id) ? await this.servers.find(principal.applicationId, id) : undefined;
    if (!server) throw oapError('mcp_server_not_found', 'No such MCP server', { field: 'mcp_server_id' });
    return mcpServerView(server);
  }

  @ApiDoc({
    summary: 'Delete an upstream MCP server: its tools are no longer listed or callable through the gateway',
    tag: 'OAP',
    response: 'No content',
    errors: [401, 404],
  })
  @Delete('api/v1/mcp_servers/:mcp_server_id')
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Param('mcp_server_id') id: string): Promise<void> {
    if (!UUID.test(id) || !(await this.servers.delete(principal.applicationId, id)))
      throw oapError('mcp_server_not_found', 'No such MCP server', { field: 'mcp_server_id' });
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
  async configuration(): Promise<McpConfigurationResponse> {
    const { SUPPORTED_PROTOCOL_VERSIONS } = (await mcpSdk()).types;
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
