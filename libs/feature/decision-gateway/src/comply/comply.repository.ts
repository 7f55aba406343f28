import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { ChangeRequest, ChangeRequestStatus, ChangeRequestStep, GovernancePolicy, GovernedAction } from './governance';
import { OPEN_POLICY } from './governance';
import { moduleRules, REGIMES, type ComplianceModule, type ModuleSettings, type Regime } from './regimes';

interface ModuleRow {
  regime: Regime;
  enabled: boolean;
  settings: ModuleSettings;
  updated_at: Date;
}

interface ChangeRequestRow {
  seq: string;
  id: string;
  application_id: string;
  action: GovernedAction;
  target: string;
  changes: Record<string, unknown>;
  status: ChangeRequestStatus;
  requested_by: string;
  reason: string | null;
  decided_by: string | null;
  steps: ChangeRequestStep[];
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  applied_at: Date | null;
}

const toRequest = (row: ChangeRequestRow): ChangeRequest => ({
  seq: Number(row.seq),
  id: row.id,
  applicationId: row.application_id,
  action: row.action,
  target: row.target,
  changes: row.changes,
  status: row.status,
  requestedBy: row.requested_by,
  reason: row.reason,
  decidedBy: row.decided_by,
  steps: row.steps,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  decidedAt: row.decided_at,
  appliedAt: row.applied_at,
});

/** Queries of gateway.compliance_modules, governance_policies and change_requests; scoped by application. */
@Injectable()
export class ComplyRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Every regime's module of the application, in catalogue order; a never-configured one is disabled with defaults. */
  async modules(applicationId: string, manager: EntityManager = this.dataSource.manager): Promise<ComplianceModule[]> {
    const rows = await queryRows<ModuleRow>(
      manager,
      `SELECT regime, enabled, settings, updated_at FROM gateway.compliance_modules WHERE application_id = $1`,
      [applicationId],
    );
    return REGIMES.map((regime) => {
      const row = rows.find((r) => r.regime === regime);
      return {
        regime,
        enabled: row?.enabled ?? false,
        rules: moduleRules(regime, row?.settings ?? {}),
        updatedAt: row?.updated_at ?? null,
      };
    });
  }

  async settings(applicationId: string, regime: Regime, manager: EntityManager = this.dataSource.manager): Promise<ModuleSettings> {
    const rows = await queryRows<{ settings: ModuleSettings }>(
      manager,
      `SELECT settings FROM gateway.compliance_modules WHERE application_id = $1 AND regime = $2`,
      [applicationId, regime],
    );
    return rows[0]?.settings ?? {};
  }

  async saveModule(
    manager: EntityManager,
    applicationId: string,
    regime: Regime,
    enabled: boolean,
    settings: ModuleSettings,
    auditEntryId: string,
    at: Date,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.compliance_modules (application_id, regime, enabled, settings, audit_entry_id, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (application_id, regime) DO UPDATE SET enabled = EXCLUDED.enabled, settings = EXCLUDED.settings, audit_entry_id = EXCLUDED.audit_entry_id, updated_at = EXCLUDED.updated_at`,
      [applicationId, regime, enabled, JSON.stringify(settings), auditEntryId, at],
    );
  }

  /** The application's policy; locked for the transaction when `lock` (a change reads and writes it). */
  async policy(applicationId: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<GovernancePolicy> {
    const rows = await queryRows<{
      policy: Pick<GovernancePolicy, 'roles' | 'four_eyes'>;
      version: number;
      updated_at: Date;
      audit_entry_id: string | null;
    }>(
      manager,
      `SELECT policy, version, updated_at, audit_entry_id FROM gateway.governance_policies WHERE application_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [applicationId],
    );
    const row = rows[0];
    if (!row) return OPEN_POLICY;
    return {
      roles: { ...OPEN_POLICY.roles, ...row.policy.roles },
      four_eyes: row.policy.four_eyes,
      version: row.version,
      updatedAt: row.updated_at,
      auditEntryId: row.audit_entry_id,
    };
  }

  async savePolicy(
    manager: EntityManager,
    applicationId: string,
    policy: Pick<GovernancePolicy, 'roles' | 'four_eyes'>,
    auditEntryId: string,
    at: Date,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.governance_policies (application_id, policy, version, audit_entry_id, updated_at) VALUES ($1, $2, 1, $3, $4)
       ON CONFLICT (application_id) DO UPDATE SET policy = EXCLUDED.policy, version = gateway.governance_policies.version + 1, audit_entry_id = EXCLUDED.audit_entry_id, updated_at = EXCLUDED.updated_at`,
      [applicationId, JSON.stringify({ roles: policy.roles, four_eyes: policy.four_eyes }), auditEntryId, at],
    );
  }

  async insertRequest(
    manager: EntityManager,
    request: Omit<ChangeRequest, 'seq' | 'decidedBy' | 'decidedAt' | 'appliedAt'>,
  ): Promise<ChangeRequest> {
    const rows = await queryRows<ChangeRequestRow>(
      manager,
      `INSERT INTO gateway.change_requests (id, application_id, action, target, changes, status, requested_by, reason, steps, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        request.id,
        request.applicationId,
        request.action,
        request.target,
        JSON.stringify(request.changes),
        request.status,
        request.requestedBy,
        request.reason,
        JSON.stringify(request.steps),
        request.createdAt,
        request.expiresAt,
      ],
    );
    return toRequest(rows[0]!);
  }

  async findRequest(
    applicationId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
    lock = false,
  ): Promise<ChangeRequest | undefined> {
    const rows = await queryRows<ChangeRequestRow>(
      manager,
      `SELECT * FROM gateway.change_requests WHERE application_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
      [applicationId, id],
    );
    return rows[0] ? toRequest(rows[0]) : undefined;
  }

  /** The oldest approved, unexpired request for an action and target, locked (an activation or rotation carries it out). */
  async approvedFor(
    manager: EntityManager,
    applicationId: string,
    action: GovernedAction,
    target: string,
    now: Date,
  ): Promise<ChangeRequest | undefined> {
    const rows = await queryRows<ChangeRequestRow>(
      manager,
      `SELECT * FROM gateway.change_requests WHERE application_id = $1 AND action = $2 AND target = $3 AND status = 'approved' AND expires_at > $4 ORDER BY seq LIMIT 1 FOR UPDATE`,
      [applicationId, action, target, now],
    );
    return rows[0] ? toRequest(rows[0]) : undefined;
  }

  /** A rotate_keys request carried out since `since`: its window still covers the rotation's other half. */
  async appliedSince(applicationId: string, action: GovernedAction, target: string, since: Date): Promise<ChangeRequest | undefined> {
    const rows = await queryRows<ChangeRequestRow>(
      this.dataSource.manager,
      `SELECT * FROM gateway.change_requests WHERE application_id = $1 AND action = $2 AND target = $3 AND status = 'applied' AND applied_at > $4 ORDER BY seq DESC LIMIT 1`,
      [applicationId, action, target, since],
    );
    return rows[0] ? toRequest(rows[0]) : undefined;
  }

  async updateRequest(
    manager: EntityManager,
    id: string,
    patch: { status: ChangeRequestStatus; decidedBy?: string; decidedAt?: Date; appliedAt?: Date; steps: readonly ChangeRequestStep[] },
  ): Promise<ChangeRequest> {
    const rows = await queryRows<ChangeRequestRow>(
      manager,
      `UPDATE gateway.change_requests SET status = $2, decided_by = COALESCE($3, decided_by), decided_at = COALESCE($4, decided_at), applied_at = COALESCE($5, applied_at), steps = $6 WHERE id = $1 RETURNING *`,
      [id, patch.status, patch.decidedBy ?? null, patch.decidedAt ?? null, patch.appliedAt ?? null, JSON.stringify(patch.steps)],
    );
    return toRequest(rows[0]!);
  }

  async listRequests(
    applicationId: string,
    filter: { status?: ChangeRequestStatus; action?: GovernedAction },
    limit: number,
    afterSeq: number,
  ): Promise<ChangeRequest[]> {
    const rows = await queryRows<ChangeRequestRow>(
      this.dataSource.manager,
      `SELECT * FROM gateway.change_requests WHERE application_id = $1 AND seq > $2 AND ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR action = $4) ORDER BY seq LIMIT $5`,
      [applicationId, afterSeq, filter.status ?? null, filter.action ?? null, limit],
    );
    return rows.map(toRequest);
  }

  /** API token ids of the application among `ids` (active or revoked). */
  async knownTokenIds(applicationId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await queryRows<{ id: string }>(
      this.dataSource.manager,
      `SELECT id FROM gateway.api_tokens WHERE application_id = $1 AND id = ANY($2)`,
      [applicationId, [...ids]],
    );
    return new Set(rows.map((row) => row.id));
  }
}
