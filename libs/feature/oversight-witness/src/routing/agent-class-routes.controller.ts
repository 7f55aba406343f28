import { Body, Controller, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { AgentClassRouteEnvelopeResponse, AgentClassRouteResponse, ResolvedAgentClassRouteResponse } from './agent-class-route.response';
import { AgentClassQuery, AgentClassRoutesQuery, SetAgentClassRouteBody } from './agent-class-routes.dto';
import { AgentClassRoutesRepository, type AgentClassRouteEntry } from './agent-class-routes.repository';
import { ResolveAgentClassRoute } from './resolve-agent-class-route.use-case';

function routeView(entry: AgentClassRouteEntry): AgentClassRouteResponse {
  return { object: 'agent_class_route', agent_class: entry.agentClass, route: entry.route, updated_at: entry.updatedAt.toISOString() };
}

/**
 * Hybrid mode configuration of the calling application (API token): agent_class → `conductor`
 * or `oversight`. The table is kept whatever the mode; it takes effect while the application's
 * `mode` (decision-gateway, PATCH /api/v1/applications/:id) is `hybrid`. `?agent_class=` on GET
 * answers the effective route of one class instead of the page.
 */
@Controller('api/v1/oap/attestations/agent_class_routes')
export class AgentClassRoutesController {
  constructor(
    private readonly routes: AgentClassRoutesRepository,
    private readonly resolveRoute: ResolveAgentClassRoute,
    private readonly clock: Clock,
  ) {}

  @ApiDoc({
    tag: 'OAP Oversight',
    summary: 'Hybrid routes (agent_class → conductor|oversight); with ?agent_class= the effective route of one class',
    response: 'Page of agent_class_route {agent_class, route, updated_at}, or {agent_class, mode, route, configured}',
  })
  @Get()
  @ApiResponseOf(AgentClassRouteResponse, { page: true })
  @ApiResponseOf(ResolvedAgentClassRouteResponse)
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AgentClassRoutesQuery,
  ): Promise<Page<AgentClassRouteResponse> | ResolvedAgentClassRouteResponse> {
    if (query.agent_class !== undefined) {
      const resolved = await this.resolveRoute.execute(principal.applicationId, query.agent_class);
      return {
        object: 'agent_class_route',
        agent_class: query.agent_class,
        mode: resolved.mode,
        route: resolved.route,
        configured: resolved.configured,
      } satisfies ResolvedAgentClassRouteResponse;
    }
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['agent_class']).agent_class : undefined;
    const rows = await this.routes.list(principal.applicationId, limit + 1, after);
    return toPage(rows, limit, routeView, (r) => ({ agent_class: r.agentClass }));
  }

  /** Creates or replaces one class's route; 200 with it. */
  @ApiDoc({ tag: 'OAP Oversight', summary: "Set one agent class's hybrid route", response: 'agent_class_route', errors: [400, 401, 422] })
  @Put()
  @ApiResponseOf(AgentClassRouteEnvelopeResponse)
  async set(@CurrentPrincipal() principal: Principal, @Body() body: SetAgentClassRouteBody): Promise<AgentClassRouteEnvelopeResponse> {
    return {
      agent_class_route: routeView(await this.routes.upsert(principal.applicationId, body.agent_class, body.route, this.clock.now())),
    };
  }

  /** Removes one class's route (it falls back to conductor in hybrid mode); 204 whether or not it existed. */
  @ApiDoc({ tag: 'OAP Oversight', summary: "Remove one agent class's route (falls back to conductor)", errors: [400, 401] })
  @Delete()
  @HttpCode(204)
  async remove(@CurrentPrincipal() principal: Principal, @Query() query: AgentClassQuery): Promise<void> {
    await this.routes.remove(principal.applicationId, query.agent_class);
  }
}
