import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { DEFAULT_PAGE_SIZE, IdParam, PageQuery, decodeCursor, toPage, type Page, ApiDoc, ApiResponseOf } from '@svc/server';
import { AgentResponse, CapabilityVersionResponse } from './agent.response';
import { agentView } from './agent';
import { PublishCapabilitiesBody, RegisterAgentBody } from './agents.dto';
import { AgentsRepository } from './agents.repository';
import { ownedAgent } from './use-cases/owned-agent';
import { PublishCapabilities } from './use-cases/publish-capabilities.use-case';
import { RegisterAgent } from './use-cases/register-agent.use-case';

/** Agent identities of the caller's application (API token). */
@Controller('api/v1/agents')
export class AgentsController {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly registerAgent: RegisterAgent,
    private readonly publishCapabilities: PublishCapabilities,
  ) {}

  @ApiDoc({
    summary: 'Register an agent identity (agent_<region>_…) with optional self-reported agent_metadata',
    tag: 'OAP',
    errors: [400, 401, 422],
  })
  @Post()
  @ApiResponseOf(AgentResponse)
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterAgentBody): Promise<Record<string, unknown>> {
    return agentView(await this.registerAgent.execute(principal.applicationId, body.name, body.agent_metadata));
  }

  @ApiDoc({ summary: 'List the agents of the application (cursor pagination)', tag: 'OAP', errors: [400, 401, 422] })
  @Get()
  @ApiResponseOf(AgentResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<Record<string, unknown>>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.agents.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(rows, limit, agentView, (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }));
  }

  @ApiDoc({ summary: 'An agent of the application', tag: 'OAP', errors: [401, 404] })
  @Get(':agent_id')
  @ApiResponseOf(AgentResponse)
  async get(@CurrentPrincipal() principal: Principal, @IdParam('agent_id', 'agent') agentId: string): Promise<Record<string, unknown>> {
    return agentView(await ownedAgent(this.agents, principal, agentId));
  }

  @ApiDoc({ summary: 'Publish a new capability manifest version (tpcv_<region>_…)', tag: 'OAP', errors: [400, 401, 404, 422] })
  @Post(':agent_id/capabilities')
  @ApiResponseOf(CapabilityVersionResponse)
  async publish(
    @CurrentPrincipal() principal: Principal,
    @IdParam('agent_id', 'agent') agentId: string,
    @Body() body: PublishCapabilitiesBody,
  ): Promise<CapabilityVersionResponse> {
    const version = await this.publishCapabilities.execute(principal, agentId, {
      scopes: body.scopes.map((s) => ({
        id: s.id,
        label: s.label,
        parent: s.parent ?? null,
        custom: s.custom ?? false,
        status: s.status ?? 'active',
      })),
      actions: body.actions,
    });
    return {
      object: 'capability_version',
      agent_id: agentId,
      version_id: version.versionId,
      manifest_sha256: version.manifestSha256,
      published_at: version.publishedAt.toISOString(),
    } satisfies CapabilityVersionResponse;
  }
}
