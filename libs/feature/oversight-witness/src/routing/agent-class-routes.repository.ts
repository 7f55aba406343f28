import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

/** Where a hybrid application sends an agent class: our cascade or the customer's engine. */
export const AGENT_CLASS_ROUTES = ['conductor', 'oversight'] as const;
export type AgentClassRoute = (typeof AGENT_CLASS_ROUTES)[number];

/** One configured route. */
export interface AgentClassRouteEntry {
  agentClass: string;
  route: AgentClassRoute;
  updatedAt: Date;
}

/** Per-application agent_class → route table of Hybrid mode (schema `oversight`). */
@Injectable()
export class AgentClassRoutesRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(applicationId: string, agentClass: string): Promise<AgentClassRoute | undefined> {
    const rows: Array<{ route: AgentClassRoute }> = await this.dataSource.query(
      `SELECT route FROM oversight.agent_class_routes WHERE application_id = $1 AND agent_class = $2`,
      [applicationId, agentClass],
    );
    return rows[0]?.route;
  }

  async upsert(applicationId: string, agentClass: string, route: AgentClassRoute, now: Date): Promise<AgentClassRouteEntry> {
    await this.dataSource.query(
      `INSERT INTO oversight.agent_class_routes (application_id, agent_class, route, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT ON CONSTRAINT agent_class_routes_pkey DO UPDATE SET route = EXCLUDED.route, updated_at = EXCLUDED.updated_at`,
      [applicationId, agentClass, route, now],
    );
    return { agentClass, route, updatedAt: now };
  }

  /** Removes a route; true when one existed. */
  async remove(applicationId: string, agentClass: string): Promise<boolean> {
    const rows = await queryRows<{ agent_class: string }>(
      this.dataSource,
      `DELETE FROM oversight.agent_class_routes WHERE application_id = $1 AND agent_class = $2 RETURNING agent_class`,
      [applicationId, agentClass],
    );
    return rows.length > 0;
  }

  async list(applicationId: string, limit: number, afterAgentClass?: string): Promise<AgentClassRouteEntry[]> {
    const rows: Array<{ agent_class: string; route: AgentClassRoute; updated_at: Date }> = await this.dataSource.query(
      `SELECT agent_class, route, updated_at FROM oversight.agent_class_routes
        WHERE application_id = $1 AND ($2::text IS NULL OR agent_class > $2) ORDER BY agent_class LIMIT $3`,
      [applicationId, afterAgentClass ?? null, limit],
    );
    return rows.map((r) => ({ agentClass: r.agent_class, route: r.route, updatedAt: r.updated_at }));
  }
}
