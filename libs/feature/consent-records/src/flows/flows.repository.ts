import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { FlowTerms, FlowVersion, FlowVersionStatus } from './flow';

interface FlowVersionRow {
  flow_id: string;
  application_id: string;
  version: number;
  status: FlowVersionStatus;
  terms: FlowTerms;
  active_version: number | null;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  activated_at: Date | null;
}

const COLUMNS = `v.flow_id, f.application_id, v.version, v.status, v.terms, f.active_version, f.latest_version, v.created_at, v.updated_at, v.activated_at`;

function toFlowVersion(row: FlowVersionRow): FlowVersion {
  return {
    flowId: row.flow_id,
    applicationId: row.application_id,
    version: row.version,
    status: row.status,
    terms: row.terms,
    activeVersion: row.active_version,
    latestVersion: row.latest_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    activatedAt: row.activated_at,
  };
}

/** Versions {@link FlowsRepository.findSettled} keeps at most; beyond it the memory starts over. */
const SETTLED_VERSIONS_KEPT = 10_000;

/** Queries of consent_records.flows and flow_versions. Every read is scoped by application. */
@Injectable()
export class FlowsRepository {
  /** Versions past their draft, by application, flow and version: their terms never change again. */
  private readonly settled = new Map<string, FlowVersion>();

  constructor(private readonly dataSource: DataSource) {}

  /**
   * One version of a flow for its terms, kept in memory once it is no longer a draft: activation
   * fixes a version's terms for good (a draft's alone may be rewritten) and flows are never
   * deleted, so the terms, the flow and the version number read once stay true. Its status and
   * the flow's active and latest versions may have moved on since: {@link find} reads those.
   */
  async findSettled(applicationId: string, flowId: string, version: number, manager?: EntityManager): Promise<FlowVersion | undefined> {
    const key = `${applicationId}/${flowId}/${version}`;
    const kept = this.settled.get(key);
    if (kept) return kept;
    const flow = await this.find(applicationId, flowId, version, { manager });
    if (flow && flow.version === version && flow.status !== 'draft') {
      if (this.settled.size >= SETTLED_VERSIONS_KEPT) this.settled.clear();
      this.settled.set(key, flow);
    }
    return flow;
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertFlow(manager: EntityManager, flow: { id: string; applicationId: string; terms: FlowTerms }, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.flows (id, application_id, active_version, latest_version, created_at, updated_at) VALUES ($1, $2, NULL, 1, $3, $3)`,
      [flow.id, flow.applicationId, at],
    );
    await manager.query(
      `INSERT INTO consent_records.flow_versions (flow_id, version, status, terms, created_at, updated_at) VALUES ($1, 1, 'draft', $2, $3, $3)`,
      [flow.id, JSON.stringify(flow.terms), at],
    );
  }

  /** A version of an application's flow; `version` undefined reads the latest one. `lock` takes the flow row lock. */
  async find(
    applicationId: string,
    flowId: string,
    version?: number,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<FlowVersion | undefined> {
    const manager = options.manager ?? this.dataSource.manager;
    if (options.lock)
      await manager.query(`SELECT 1 FROM consent_records.flows WHERE id = $1 AND application_id = $2 FOR UPDATE`, [flowId, applicationId]);
    const rows: FlowVersionRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM consent_records.flows f JOIN consent_records.flow_versions v ON v.flow_id = f.id
       WHERE f.id = $1 AND f.application_id = $2 AND v.version = COALESCE($3::integer, f.latest_version)`,
      [flowId, applicationId, version ?? null],
    );
    return rows[0] ? toFlowVersion(rows[0]) : undefined;
  }

  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<FlowVersion[]> {
    const rows: FlowVersionRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM consent_records.flows f JOIN consent_records.flow_versions v ON v.flow_id = f.id AND v.version = f.latest_version
       WHERE f.application_id = $1 AND ($2::timestamptz IS NULL OR (f.created_at, f.id) > ($2::timestamptz, $3))
       ORDER BY f.created_at, f.id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toFlowVersion);
  }

  /** Rewrites a draft version's terms; the trigger refuses the write for any other status. */
  async updateDraftTerms(manager: EntityManager, flowId: string, version: number, terms: FlowTerms, at: Date): Promise<void> {
    await manager.query(
      `UPDATE consent_records.flow_versions SET terms = $3, updated_at = $4 WHERE flow_id = $1 AND version = $2 AND status = 'draft'`,
      [flowId, version, JSON.stringify(terms), at],
    );
    await manager.query(`UPDATE consent_records.flows SET updated_at = $2 WHERE id = $1`, [flowId, at]);
  }

  async insertDraftVersion(manager: EntityManager, flowId: string, version: number, terms: FlowTerms, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.flow_versions (flow_id, version, status, terms, created_at, updated_at) VALUES ($1, $2, 'draft', $3, $4, $4)`,
      [flowId, version, JSON.stringify(terms), at],
    );
    await manager.query(`UPDATE consent_records.flows SET latest_version = $2, updated_at = $3 WHERE id = $1`, [flowId, version, at]);
  }

  /** Makes `version` the governing version; the previous active version becomes `superseded`. */
  async activate(manager: EntityManager, flowId: string, version: number, at: Date): Promise<void> {
    await queryRows(
      manager,
      `UPDATE consent_records.flow_versions SET status = 'superseded', updated_at = $2 WHERE flow_id = $1 AND status = 'active' RETURNING version`,
      [flowId, at],
    );
    await queryRows(
      manager,
      `UPDATE consent_records.flow_versions SET status = 'active', activated_at = $3, updated_at = $3 WHERE flow_id = $1 AND version = $2 RETURNING version`,
      [flowId, version, at],
    );
    await manager.query(`UPDATE consent_records.flows SET active_version = $2, updated_at = $3 WHERE id = $1`, [flowId, version, at]);
  }
}
