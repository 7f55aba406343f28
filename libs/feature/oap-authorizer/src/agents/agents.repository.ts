import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { METADATA_PROVENANCE, type AgentMetadata } from './agent-metadata';
import type { Agent, CapabilityScope, CapabilityVersion } from './agent';
import { AGENT_COLUMNS, toAgent, type AgentRow } from './agent-row';

/** Queries of agents and their capability manifest versions. */
@Injectable()
export class AgentsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(
    manager: EntityManager,
    agent: { id: string; applicationId: string; name: string; metadata: AgentMetadata | null; dpopJkt?: string | null },
    at: Date,
  ): Promise<Agent> {
    const rows: AgentRow[] = await manager.query(
      `INSERT INTO oap.agents (id, application_id, name, agent_metadata, metadata_provenance, created_at, updated_at, dpop_jkt)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7) RETURNING ${AGENT_COLUMNS}`,
      [agent.id, agent.applicationId, agent.name, agent.metadata, agent.metadata ? METADATA_PROVENANCE : null, at, agent.dpopJkt ?? null],
    );
    return toAgent(rows[0]!);
  }

  /** The agent, or undefined when unknown. Callers scope it to the caller's application. */
  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<Agent | undefined> {
    const rows: AgentRow[] = await manager.query(`SELECT ${AGENT_COLUMNS} FROM oap.agents WHERE id = $1`, [id]);
    return rows[0] ? toAgent(rows[0]) : undefined;
  }

  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<Agent[]> {
    const rows: AgentRow[] = await this.dataSource.query(
      `SELECT ${AGENT_COLUMNS} FROM oap.agents WHERE application_id = $1
         AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
       ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toAgent);
  }

  async setReputation(manager: EntityManager, id: string, trustScore: number, vouchCount: number, at: Date): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `UPDATE oap.agents SET trust_score = $2, vouch_count = $3, updated_at = $4 WHERE id = $1 RETURNING id`,
      [id, trustScore, vouchCount, at],
    );
    return rows.length > 0;
  }

  async setSuppressed(manager: EntityManager, id: string, suppressed: boolean, at: Date): Promise<boolean> {
    const rows = await queryRows(manager, `UPDATE oap.agents SET suppressed = $2, updated_at = $3 WHERE id = $1 RETURNING id`, [
      id,
      suppressed,
      at,
    ]);
    return rows.length > 0;
  }

  async insertVersion(manager: EntityManager, version: CapabilityVersion, manifestJson: string): Promise<void> {
    await manager.query(
      `INSERT INTO oap.capability_versions (version_id, agent_id, manifest_json, manifest_sha256, published_at) VALUES ($1, $2, $3, $4, $5)`,
      [version.versionId, version.agentId, manifestJson, version.manifestSha256, version.publishedAt],
    );
    await manager.query(`UPDATE oap.agents SET current_version_id = $2, updated_at = $3 WHERE id = $1`, [
      version.agentId,
      version.versionId,
      version.publishedAt,
    ]);
  }

  /** The agent's current manifest version, or undefined when none was published. */
  async currentVersion(agentId: string, manager: EntityManager = this.dataSource.manager): Promise<CapabilityVersion | undefined> {
    const rows: Array<{ version_id: string; agent_id: string; manifest_json: string; manifest_sha256: string; published_at: Date }> =
      await manager.query(
        `SELECT v.version_id, v.agent_id, v.manifest_json, v.manifest_sha256, v.published_at
       FROM oap.agents a JOIN oap.capability_versions v ON v.version_id = a.current_version_id WHERE a.id = $1`,
        [agentId],
      );
    const row = rows[0];
    if (!row) return undefined;
    const manifest = JSON.parse(row.manifest_json) as { scopes: CapabilityScope[]; actions: string[] };
    return {
      versionId: row.version_id,
      agentId: row.agent_id,
      scopes: manifest.scopes,
      actions: manifest.actions,
      manifestSha256: row.manifest_sha256,
      publishedAt: row.published_at,
    };
  }

  /** One published manifest version of the agent (any version, not only the current one). */
  async findVersion(agentId: string, versionId: string): Promise<CapabilityVersion | undefined> {
    const rows: Array<{ version_id: string; agent_id: string; manifest_json: string; manifest_sha256: string; published_at: Date }> =
      await this.dataSource.query(
        `SELECT version_id, agent_id, manifest_json, manifest_sha256, published_at FROM oap.capability_versions WHERE agent_id = $1 AND version_id = $2`,
        [agentId, versionId],
      );
    const row = rows[0];
    if (!row) return undefined;
    const manifest = JSON.parse(row.manifest_json) as { scopes: CapabilityScope[]; actions: string[] };
    return {
      versionId: row.version_id,
      agentId: row.agent_id,
      scopes: manifest.scopes,
      actions: manifest.actions,
      manifestSha256: row.manifest_sha256,
      publishedAt: row.published_at,
    };
  }
}
