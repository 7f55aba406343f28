import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, IdParam, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { RegisterAgentIdentityBody } from './agent-identities.dto';
import { AgentIdentityResponse, ApplicationAgentResponse, agentIdentityView } from './agent-identity.response';
import { AgentsRepository } from './agents.repository';
import { ownedAgent } from './use-cases/owned-agent';
import { RegisterAgent } from './use-cases/register-agent.use-case';

/** The Delegate surface's agent identities (API token): the oap agent model with provider, model, DPoP key and manifest. */
@Controller('api/v1/agent_identities')
export class AgentIdentitiesController {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly registerAgent: RegisterAgent,
  ) {}

  @ApiDoc({
    summary: 'Register an agent identity with its provider, model and DPoP key thumbprint',
    tag: 'Delegate',
    errors: [400, 401, 422],
  })
  @Post()
  @ApiResponseOf(AgentIdentityResponse, { status: 201 })
  async register(@CurrentPrincipal() principal: Principal, @Body() body: RegisterAgentIdentityBody): Promise<AgentIdentityResponse> {
    const metadata = {
      agent_provider: body.provider,
      agent_model: body.model,
      ...(body.agent_type !== undefined ? { agent_type: body.agent_type } : {}),
    };
    return agentIdentityView(await this.registerAgent.execute(principal.applicationId, body.name, metadata, body.dpop_jkt), undefined);
  }

  @ApiDoc({ summary: "The application's agent identities (cursor pagination)", tag: 'Delegate', errors: [400, 401, 422] })
  @Get()
  @ApiResponseOf(AgentIdentityResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<AgentIdentityResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.agents.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const page = toPage(
      rows,
      limit,
      (a) => a,
      (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }),
    );
    return {
      ...page,
      data: await Promise.all(
        page.data.map(async (a) => agentIdentityView(a, a.currentVersionId ? await this.agents.currentVersion(a.id) : undefined)),
      ),
    };
  }

  @ApiDoc({ summary: 'An agent identity with its published capability manifest', tag: 'Delegate', errors: [401, 404] })
  @Get(':agent_id')
  @ApiResponseOf(AgentIdentityResponse)
  async get(@CurrentPrincipal() principal: Principal, @IdParam('agent_id', 'agent') agentId: string): Promise<AgentIdentityResponse> {
    const agent = await ownedAgent(this.agents, principal, agentId);
    return agentIdentityView(agent, agent.currentVersionId ? await this.agents.currentVersion(agent.id) : undefined);
  }
}

/** Which agents the caller's application runs (API token). */
@Controller('api/v1/application_agents')
export class ApplicationAgentsController {
  constructor(private readonly agents: AgentsRepository) {}

  @ApiDoc({ summary: 'The agents the application runs (cursor pagination)', tag: 'Delegate', errors: [400, 401, 422] })
  @Get()
  @ApiResponseOf(ApplicationAgentResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<ApplicationAgentResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.agents.list(
      principal.applicationId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const page = toPage(
      rows,
      limit,
      (a) => a,
      (a) => ({ created_at: a.createdAt.toISOString(), id: a.id }),
    );
    return {
      ...page,
      data: await Promise.all(
        page.data.map(async (a) => ({
          object: 'application_agent' as const,
          application_id: a.applicationId,
          agent_id: a.id,
          name: a.name,
          status: a.status,
          capability_version_id: a.currentVersionId,
          scope_count: a.currentVersionId ? ((await this.agents.currentVersion(a.id))?.scopes.length ?? 0) : 0,
          created_at: a.createdAt.toISOString(),
        })),
      ),
    };
  }
}
