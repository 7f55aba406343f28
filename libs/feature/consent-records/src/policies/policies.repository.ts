import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { PolicyTerms, PolicyVersion, PolicyVersionStatus, RetentionRule } from './policy';

interface PolicyVersionRow {
  policy_id: string;
  application_id: string;
  version: number;
  status: PolicyVersionStatus;
  name: string;
  description: string | null;
  rules: RetentionRule[];
  flow_ids: string[];
  active_version: number | null;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
  activated_at: Date | null;
}

const COLUMNS = `v.policy_id, p.application_id, v.version, v.status, v.name, v.description, v.rules, v.flow_ids, p.active_version, p.latest_version, v.created_at, v.updated_at, v.activated_at`;

function toPolicyVersion(row: PolicyVersionRow): PolicyVersion {
  return {
    policyId: row.policy_id,
    applicationId: row.application_id,
    version: row.version,
    status: row.status,
    terms: { name: row.name, description: row.description, rules: row.rules, flow_ids: row.flow_ids },
    activeVersion: row.active_version,
    latestVersion: row.latest_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    activatedAt: row.activated_at,
  };
}

/** Queries of consent_records.policies and policy_versions. Every read is scoped by application. */
@Injectable()
export class PoliciesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertPolicy(manager: EntityManager, policy: { id: string; applicationId: string; terms: PolicyTerms }, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.policies (id, application_id, active_version, latest_version, created_at, updated_at) VALUES ($1, $2, NULL, 1, $3, $3)`,
      [policy.id, policy.applicationId, at],
    );
    await this.insertVersion(manager, policy.id, 1, policy.terms, at);
  }

  /** A version of an application's policy; `version` undefined reads the latest. `lock` takes the policy row lock. */
  async find(
    applicationId: string,
    policyId: string,
    version?: number,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<PolicyVersion | undefined> {
    const manager = options.manager ?? this.dataSource.manager;
    if (options.lock)
      await manager.query(`SELECT 1 FROM consent_records.policies WHERE id = $1 AND application_id = $2 FOR UPDATE`, [
        policyId,
        applicationId,
      ]);
    const rows: PolicyVersionRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM consent_records.policies p JOIN consent_records.policy_versions v ON v.policy_id = p.id
       WHERE p.id = $1 AND p.application_id = $2 AND v.version = COALESCE($3::integer, p.latest_version)`,
      [policyId, applicationId, version ?? null],
    );
    return rows[0] ? toPolicyVersion(rows[0]) : undefined;
  }

  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<PolicyVersion[]> {
    const rows: PolicyVersionRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM consent_records.policies p JOIN consent_records.policy_versions v ON v.policy_id = p.id AND v.version = p.latest_version
       WHERE p.application_id = $1 AND ($2::timestamptz IS NULL OR (p.created_at, p.id) > ($2::timestamptz, $3))
       ORDER BY p.created_at, p.id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toPolicyVersion);
  }

  /** Flow ids among `flowIds` that are not flows of the application. */
  async unknownFlows(
    applicationId: string,
    flowIds: readonly string[],
    manager: EntityManager = this.dataSource.manager,
  ): Promise<string[]> {
    if (flowIds.length === 0) return [];
    const rows: Array<{ id: string }> = await manager.query(
      `SELECT id FROM consent_records.flows WHERE application_id = $1 AND id = ANY($2::text[])`,
      [applicationId, flowIds],
    );
    const known = new Set(rows.map((r) => r.id));
    return flowIds.filter((id) => !known.has(id));
  }

  /** Rewrites a draft version; the trigger refuses the write for any other status. */
  async updateDraft(manager: EntityManager, policyId: string, version: number, terms: PolicyTerms, at: Date): Promise<void> {
    await manager.query(
      `UPDATE consent_records.policy_versions SET name = $3, description = $4, rules = $5, flow_ids = $6, updated_at = $7 WHERE policy_id = $1 AND version = $2 AND status = 'draft'`,
      [policyId, version, terms.name, terms.description, JSON.stringify(terms.rules), terms.flow_ids, at],
    );
    await manager.query(`UPDATE consent_records.policies SET updated_at = $2 WHERE id = $1`, [policyId, at]);
  }

  async insertDraftVersion(manager: EntityManager, policyId: string, version: number, terms: PolicyTerms, at: Date): Promise<void> {
    await this.insertVersion(manager, policyId, version, terms, at);
    await manager.query(`UPDATE consent_records.policies SET latest_version = $2, updated_at = $3 WHERE id = $1`, [policyId, version, at]);
  }

  /** Makes `version` the governing version; the previous active version becomes `superseded`. */
  async activate(manager: EntityManager, policyId: string, version: number, at: Date): Promise<void> {
    await queryRows(
      manager,
      `UPDATE consent_records.policy_versions SET status = 'superseded', updated_at = $2 WHERE policy_id = $1 AND status = 'active' RETURNING version`,
      [policyId, at],
    );
    await queryRows(
      manager,
      `UPDATE consent_records.policy_versions SET status = 'active', activated_at = $3, updated_at = $3 WHERE policy_id = $1 AND version = $2 RETURNING version`,
      [policyId, version, at],
    );
    await manager.query(`UPDATE consent_records.policies SET active_version = $2, updated_at = $3 WHERE id = $1`, [policyId, version, at]);
  }

  private async insertVersion(manager: EntityManager, policyId: string, version: number, terms: PolicyTerms, at: Date): Promise<void> {
    await manager.query(
      `INSERT INTO consent_records.policy_versions (policy_id, version, status, name, description, rules, flow_ids, created_at, updated_at) VALUES ($1, $2, 'draft', $3, $4, $5, $6, $7, $7)`,
      [policyId, version, terms.name, terms.description, JSON.stringify(terms.rules), terms.flow_ids, at],
    );
  }
}
