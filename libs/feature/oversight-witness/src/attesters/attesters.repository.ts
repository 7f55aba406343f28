import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { AttesterPermission, AttesterStatus, TokenSlot, TrustedAttester } from './attester';

export type { TokenSlot } from './attester';

interface AttesterRow {
  id: string;
  application_id: string;
  name: string;
  permissions: string[];
  scope_application_id: string | null;
  status: AttesterStatus;
  previous_token_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  rotated_at: Date | null;
  suspended_at: Date | null;
  destroyed_at: Date | null;
  last_heartbeat_at: Date | null;
  last_heartbeat: Record<string, unknown> | null;
}

/** An elevation request as stored. */
export interface ElevationRequest {
  id: string;
  attesterId: string;
  applicationId: string;
  permission: AttesterPermission;
  rationale: string;
  status: 'pending' | 'granted' | 'rejected';
  createdAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
}

interface ElevationRow {
  id: string;
  attester_id: string;
  application_id: string;
  permission: AttesterPermission;
  rationale: string;
  status: ElevationRequest['status'];
  created_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
}

const COLUMNS = `id, application_id, name, permissions, scope_application_id, status, previous_token_expires_at, created_at, updated_at,
  rotated_at, suspended_at, destroyed_at, last_heartbeat_at, last_heartbeat`;

function toAttester(row: AttesterRow): TrustedAttester {
  return {
    id: row.id,
    applicationId: row.application_id,
    name: row.name,
    permissions: row.permissions as AttesterPermission[],
    scopeApplicationId: row.scope_application_id,
    status: row.status,
    previousTokenExpiresAt: row.previous_token_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    rotatedAt: row.rotated_at,
    suspendedAt: row.suspended_at,
    destroyedAt: row.destroyed_at,
    lastHeartbeatAt: row.last_heartbeat_at,
    lastHeartbeat: row.last_heartbeat,
  };
}

function toElevation(row: ElevationRow): ElevationRequest {
  return {
    id: row.id,
    attesterId: row.attester_id,
    applicationId: row.application_id,
    permission: row.permission,
    rationale: row.rationale,
    status: row.status,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
  };
}

/** Trusted attesters and their elevation requests (schema `oversight`); tokens only as SHA-256 digests. */
@Injectable()
export class AttestersRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(
    manager: EntityManager,
    attester: {
      id: string;
      applicationId: string;
      name: string;
      permissions: readonly string[];
      scopeApplicationId: string | null;
      tokenDigest: string;
    },
    now: Date,
  ): Promise<TrustedAttester> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `INSERT INTO oversight.trusted_attesters (id, application_id, name, permissions, scope_application_id, status, token_digest, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'active', $6, $7, $7) RETURNING ${COLUMNS}`,
      [attester.id, attester.applicationId, attester.name, attester.permissions, attester.scopeApplicationId, attester.tokenDigest, now],
    );
    return toAttester(rows[0] as AttesterRow);
  }

  /** The attester `id` of `applicationId`, read outside any transaction. */
  find(applicationId: string, id: string): Promise<TrustedAttester | undefined> {
    return this.findOwned(this.dataSource.manager, applicationId, id);
  }

  /** The attester `id` of `applicationId`, locked for update when `manager` is in a transaction. */
  async findOwned(manager: EntityManager, applicationId: string, id: string, lock = false): Promise<TrustedAttester | undefined> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `SELECT ${COLUMNS} FROM oversight.trusted_attesters WHERE id = $1 AND application_id = $2${lock ? ' FOR UPDATE' : ''}`,
      [id, applicationId],
    );
    return rows[0] ? toAttester(rows[0]) : undefined;
  }

  /**
   * Finds the attester holding `digest` in its current slot, or in its previous slot while that
   * slot's overlap has not ended at `now`. A destroyed attester holds no digest, so never matches.
   */
  async findByTokenDigest(digest: string, now: Date): Promise<{ attester: TrustedAttester; slot: TokenSlot } | undefined> {
    const rows: Array<AttesterRow & { slot: TokenSlot }> = await this.dataSource.query(
      `SELECT ${COLUMNS}, CASE WHEN token_digest = $1 THEN 'current' ELSE 'previous' END AS slot
         FROM oversight.trusted_attesters
        WHERE token_digest = $1 OR (previous_token_digest = $1 AND previous_token_expires_at > $2)`,
      [digest, now],
    );
    const row = rows[0];
    return row ? { attester: toAttester(row), slot: row.slot } : undefined;
  }

  /** Moves the current digest to the previous slot (honoured until `previousExpiresAt`) and installs `digest`. */
  async rotate(manager: EntityManager, id: string, digest: string, previousExpiresAt: Date, now: Date): Promise<TrustedAttester> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `UPDATE oversight.trusted_attesters
          SET previous_token_digest = token_digest, previous_token_expires_at = $3, token_digest = $2, rotated_at = $4, updated_at = $4
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, digest, previousExpiresAt, now],
    );
    return toAttester(rows[0] as AttesterRow);
  }

  async setStatus(manager: EntityManager, id: string, status: 'active' | 'suspended', now: Date): Promise<TrustedAttester> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `UPDATE oversight.trusted_attesters
          SET status = $2, suspended_at = CASE WHEN $2 = 'suspended' THEN $3::timestamptz ELSE NULL END, updated_at = $3
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status, now],
    );
    return toAttester(rows[0] as AttesterRow);
  }

  /** Permanent: both token slots are cleared, so no token of this attester can ever match again. */
  async destroy(manager: EntityManager, id: string, now: Date): Promise<TrustedAttester> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `UPDATE oversight.trusted_attesters
          SET status = 'destroyed', token_digest = NULL, previous_token_digest = NULL, previous_token_expires_at = NULL,
              destroyed_at = $2, updated_at = $2
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now],
    );
    return toAttester(rows[0] as AttesterRow);
  }

  async addPermission(manager: EntityManager, id: string, permission: AttesterPermission, now: Date): Promise<void> {
    await manager.query(
      `UPDATE oversight.trusted_attesters SET permissions = array_append(permissions, $2), updated_at = $3
        WHERE id = $1 AND NOT ($2 = ANY(permissions))`,
      [id, permission, now],
    );
  }

  async recordHeartbeat(manager: EntityManager, id: string, heartbeat: Record<string, unknown>, now: Date): Promise<TrustedAttester> {
    const rows = await queryRows<AttesterRow>(
      manager,
      `UPDATE oversight.trusted_attesters SET last_heartbeat_at = $2, last_heartbeat = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now, JSON.stringify(heartbeat)],
    );
    return toAttester(rows[0] as AttesterRow);
  }

  /** Attesters of an application in (created_at, id) order after `after`; `limit` rows. */
  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<TrustedAttester[]> {
    const rows: AttesterRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oversight.trusted_attesters
        WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
        ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toAttester);
  }

  async insertElevation(
    manager: EntityManager,
    request: Omit<ElevationRequest, 'status' | 'decidedAt' | 'decidedBy' | 'createdAt'>,
    now: Date,
  ): Promise<ElevationRequest> {
    const rows = await queryRows<ElevationRow>(
      manager,
      `INSERT INTO oversight.elevation_requests (id, attester_id, application_id, permission, rationale, status, created_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', $6) RETURNING *`,
      [request.id, request.attesterId, request.applicationId, request.permission, request.rationale, now],
    );
    return toElevation(rows[0] as ElevationRow);
  }

  async findElevation(manager: EntityManager, id: string): Promise<ElevationRequest | undefined> {
    const rows = await queryRows<ElevationRow>(manager, `SELECT * FROM oversight.elevation_requests WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] ? toElevation(rows[0]) : undefined;
  }

  async decideElevation(
    manager: EntityManager,
    id: string,
    status: 'granted' | 'rejected',
    operator: string,
    now: Date,
  ): Promise<ElevationRequest> {
    const rows = await queryRows<ElevationRow>(
      manager,
      `UPDATE oversight.elevation_requests SET status = $2, decided_by = $3, decided_at = $4 WHERE id = $1 RETURNING *`,
      [id, status, operator, now],
    );
    return toElevation(rows[0] as ElevationRow);
  }

  /** Elevation requests of an application, oldest first (the operator queue order). */
  async listElevations(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ElevationRequest[]> {
    const rows: ElevationRow[] = await this.dataSource.query(
      `SELECT * FROM oversight.elevation_requests
        WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
        ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toElevation);
  }
}
