import { Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { oversightError } from '../oversight.errors';
import { AgentClassRoutesRepository, type AgentClassRoute } from './agent-class-routes.repository';

/** How one agent class of one application is decided. */
export interface ResolvedRoute {
  /** The application's mode as the gateway reports it. */
  mode: 'conductor' | 'oversight' | 'hybrid';
  route: AgentClassRoute;
  /** True when a hybrid route was configured for the class (false: the conductor default applied). */
  configured: boolean;
}

/**
 * Decides who decides an agent class (spec, What the service does 5): `conductor` applications use
 * the cascade for every class, `oversight` ones the customer's engine; a `hybrid` application
 * routes per agent class by its configured table, and an unconfigured class falls back to
 * `conductor` (the default mode), so adding a class never silently bypasses our cascade.
 * The application mode is read from decision-gateway over RPC (`gateway.get_application`).
 * oap-authorizer can ask the same question over RPC `oversight.agent_class_route`.
 */
@Injectable()
export class ResolveAgentClassRoute {
  constructor(
    private readonly routes: AgentClassRoutesRepository,
    private readonly rpc: RpcClient,
  ) {}

  async execute(applicationId: string, agentClass: string): Promise<ResolvedRoute> {
    const app = await this.rpc.call('gateway.get_application', { applicationId });
    if (!app.found) throw oversightError('application_not_found', 'Application not found', { application_id: applicationId });
    const mode = app.mode === 'oversight' || app.mode === 'hybrid' ? app.mode : 'conductor';
    if (mode !== 'hybrid') return { mode, route: mode, configured: false };
    const configured = await this.routes.find(applicationId, agentClass);
    return { mode, route: configured ?? 'conductor', configured: configured !== undefined };
  }
}
