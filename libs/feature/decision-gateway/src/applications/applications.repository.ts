import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Application, ApplicationMode, Environment } from './application';

interface ApplicationRow {
  id: string;
  name: string;
  environment: Environment;
  mode: ApplicationMode;
  capabilities_published: boolean;
  region: string;
  logo_url: string | null;
  brand_color: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A change to an application; for logoUrl and brandColor, undefined keeps the value and null clears it. */
export interface ApplicationPatch {
  name?: string;
  mode?: ApplicationMode;
  capabilitiesPublished?: boolean;
  logoUrl?: string | null;
  brandColor?: string | null;
}

export interface ApiTokenRecord {
  id: string;
  applicationId: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
}

export interface CredentialOwner {
  credentialId: string;
  scopes: string[];
  application: Application;
}

function toApplication(row: ApplicationRow): Application {
  return {
    id: row.id,
    name: row.name,
    environment: row.environment,
    mode: row.mode,
    capabilitiesPublished: row.capabilities_published,
    region: row.region,
    logoUrl: row.logo_url,
    brandColor: row.brand_color,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const APP_COLUMNS =
  'a.id, a.name, a.environment, a.mode, a.capabilities_published, a.region, a.logo_url, a.brand_color, a.created_at, a.updated_at';

/** Queries of the gateway schema: applications, credentials, allowed origins. */
@Injectable()
export class ApplicationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertApplication(
    manager: EntityManager,
    app: Omit<Application, 'createdAt' | 'updatedAt'>,
    at: Date,
    accountId?: string,
  ): Promise<Application> {
    const rows: ApplicationRow[] = await manager.query(
      `INSERT INTO gateway.applications AS a (id, name, environment, mode, capabilities_published, region, logo_url, brand_color, created_at, updated_at, account_id)
       VALUES ($1, $2, $3, $4, $5, $6, $8, $9, $7, $7, $10) RETURNING ${APP_COLUMNS}`,
      [
        app.id,
        app.name,
        app.environment,
        app.mode,
        app.capabilitiesPublished,
        app.region,
        at,
        app.logoUrl,
        app.brandColor,
        accountId ?? null,
      ],
    );
    return toApplication(rows[0]!);
  }

  async findApplication(id: string, manager: EntityManager = this.dataSource.manager): Promise<Application | undefined> {
    const rows: ApplicationRow[] = await manager.query(`SELECT ${APP_COLUMNS} FROM gateway.applications a WHERE a.id = $1`, [id]);
    return rows[0] ? toApplication(rows[0]) : undefined;
  }

  async updateApplication(manager: EntityManager, id: string, patch: ApplicationPatch, at: Date): Promise<Application | undefined> {
    // logo_url / brand_color: undefined keeps the value, null clears it.
    const rows = await queryRows<ApplicationRow>(
      manager,
      `UPDATE gateway.applications AS a SET
         name = COALESCE($2, a.name),
         mode = COALESCE($3, a.mode),
         capabilities_published = COALESCE($4, a.capabilities_published),
         logo_url = CASE WHEN $6::boolean THEN $7::text ELSE a.logo_url END,
         brand_color = CASE WHEN $8::boolean THEN $9::text ELSE a.brand_color END,
         updated_at = $5
       WHERE a.id = $1 RETURNING ${APP_COLUMNS}`,
      [
        id,
        patch.name ?? null,
        patch.mode ?? null,
        patch.capabilitiesPublished ?? null,
        at,
        patch.logoUrl !== undefined,
        patch.logoUrl ?? null,
        patch.brandColor !== undefined,
        patch.brandColor ?? null,
      ],
    );
    return rows[0] ? toApplication(rows[0]) : undefined;
  }

  async insertApiToken(
    manager: EntityManager,
    token: { id: string; applicationId: string; digest: string; name: string; scopes: readonly string[] },
    at: Date,
  ): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.api_tokens (id, application_id, token_sha256, name, scopes, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [token.id, token.applicationId, token.digest, token.name, token.scopes, at],
    );
  }

  async findByTokenDigest(digest: string): Promise<CredentialOwner | undefined> {
    const rows: Array<ApplicationRow & { token_id: string; scopes: string[] }> = await this.dataSource.query(
      `SELECT t.id AS token_id, t.scopes, ${APP_COLUMNS}
       FROM gateway.api_tokens t JOIN gateway.applications a ON a.id = t.application_id
       WHERE t.token_sha256 = $1 AND t.revoked_at IS NULL`,
      [digest],
    );
    const row = rows[0];
    return row ? { credentialId: row.token_id, scopes: row.scopes, application: toApplication(row) } : undefined;
  }

  async listApiTokens(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<ApiTokenRecord[]> {
    const rows: Array<{ id: string; application_id: string; name: string; scopes: string[]; created_at: Date; revoked_at: Date | null }> =
      await this.dataSource.query(
        `SELECT id, application_id, name, scopes, created_at, revoked_at FROM gateway.api_tokens
         WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
         ORDER BY created_at, id LIMIT $4`,
        [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
      );
    return rows.map((r) => ({
      id: r.id,
      applicationId: r.application_id,
      name: r.name,
      scopes: r.scopes,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
    }));
  }

  async countActiveApiTokens(manager: EntityManager, applicationId: string): Promise<number> {
    const rows: Array<{ count: string }> = await manager.query(
      `SELECT count(*) AS count FROM gateway.api_tokens WHERE application_id = $1 AND revoked_at IS NULL`,
      [applicationId],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async revokeApiToken(manager: EntityManager, applicationId: string, tokenId: string, at: Date): Promise<ApiTokenRecord | undefined> {
    const rows = await queryRows<{
      id: string;
      application_id: string;
      name: string;
      scopes: string[];
      created_at: Date;
      revoked_at: Date | null;
    }>(
      manager,
      `UPDATE gateway.api_tokens SET revoked_at = COALESCE(revoked_at, $3)
         WHERE application_id = $1 AND id = $2 RETURNING id, application_id, name, scopes, created_at, revoked_at`,
      [applicationId, tokenId, at],
    );
    const r = rows[0];
    return r
      ? { id: r.id, applicationId: r.application_id, name: r.name, scopes: r.scopes, createdAt: r.created_at, revokedAt: r.revoked_at }
      : undefined;
  }

  async insertPublishableKey(manager: EntityManager, key: string, applicationId: string, at: Date): Promise<void> {
    await manager.query(`INSERT INTO gateway.publishable_keys (key, application_id, created_at) VALUES ($1, $2, $3)`, [
      key,
      applicationId,
      at,
    ]);
  }

  async findByPublishableKey(key: string): Promise<Application | undefined> {
    const rows: ApplicationRow[] = await this.dataSource.query(
      `SELECT ${APP_COLUMNS} FROM gateway.publishable_keys k JOIN gateway.applications a ON a.id = k.application_id
       WHERE k.key = $1 AND k.revoked_at IS NULL`,
      [key],
    );
    return rows[0] ? toApplication(rows[0]) : undefined;
  }

  async listPublishableKeys(
    applicationId: string,
    limit: number,
    after?: { createdAt: string; key: string },
  ): Promise<Array<{ key: string; createdAt: Date; revokedAt: Date | null }>> {
    const rows: Array<{ key: string; created_at: Date; revoked_at: Date | null }> = await this.dataSource.query(
      `SELECT key, created_at, revoked_at FROM gateway.publishable_keys
       WHERE application_id = $1 AND ($2::timestamptz IS NULL OR (created_at, key) > ($2::timestamptz, $3)) ORDER BY created_at, key LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.key ?? '', limit],
    );
    return rows.map((r) => ({ key: r.key, createdAt: r.created_at, revokedAt: r.revoked_at }));
  }

  async countActivePublishableKeys(manager: EntityManager, applicationId: string): Promise<number> {
    const rows: Array<{ count: string }> = await manager.query(
      `SELECT count(*) AS count FROM gateway.publishable_keys WHERE application_id = $1 AND revoked_at IS NULL`,
      [applicationId],
    );
    return Number(rows[0]?.count ?? 0);
  }

  async revokePublishableKey(
    manager: EntityManager,
    applicationId: string,
    key: string,
    at: Date,
  ): Promise<{ key: string; createdAt: Date; revokedAt: Date | null } | undefined> {
    const rows = await queryRows<{ key: string; created_at: Date; revoked_at: Date | null }>(
      manager,
      `UPDATE gateway.publishable_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE application_id = $1 AND key = $2 RETURNING key, created_at, revoked_at`,
      [applicationId, key, at],
    );
    const r = rows[0];
    return r ? { key: r.key, createdAt: r.created_at, revokedAt: r.revoked_at } : undefined;
  }

  /**
   * Deletes a sandbox application's consent sessions created up to `before`, with their votes and
   * consent tokens, its principal assertions and its activity; returns the sessions deleted.
   * Approval, signing and agreement sessions belong to other services' resources and stay.
   */
  async deleteSandboxSessions(manager: EntityManager, applicationId: string, before: Date): Promise<number> {
    const scope = `SELECT token_sha256 FROM gateway.decision_sessions WHERE application_id = $1 AND kind = 'consent' AND created_at <= $2`;
    await manager.query(`DELETE FROM gateway.consent_tokens WHERE session_token_sha256 IN (${scope})`, [applicationId, before]);
    await manager.query(`DELETE FROM gateway.decision_votes WHERE token_sha256 IN (${scope})`, [applicationId, before]);
    const deleted = await queryRows(
      manager,
      `DELETE FROM gateway.decision_sessions WHERE token_sha256 IN (${scope}) RETURNING token_sha256`,
      [applicationId, before],
    );
    await manager.query(`DELETE FROM gateway.principal_assertions WHERE application_id = $1`, [applicationId]);
    await manager.query(`DELETE FROM gateway.activity_events WHERE application_id = $1`, [applicationId]);
    return deleted.length;
  }

  async currentPublishableKey(applicationId: string): Promise<string | undefined> {
    const rows: Array<{ key: string }> = await this.dataSource.query(
      `SELECT key FROM gateway.publishable_keys WHERE application_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`,
      [applicationId],
    );
    return rows[0]?.key;
  }

  /** Inserts an origin; returns its creation time and whether this call created it. */
  async addOrigin(manager: EntityManager, applicationId: string, origin: string, at: Date): Promise<{ created: boolean; createdAt: Date }> {
    const inserted: Array<{ created_at: Date }> = await manager.query(
      `INSERT INTO gateway.allowed_origins (application_id, origin, created_at) VALUES ($1, $2, $3)
       ON CONFLICT ON CONSTRAINT allowed_origins_pk DO NOTHING RETURNING created_at`,
      [applicationId, origin, at],
    );
    if (inserted[0]) return { created: true, createdAt: inserted[0].created_at };
    const existing: Array<{ created_at: Date }> = await manager.query(
      `SELECT created_at FROM gateway.allowed_origins WHERE application_id = $1 AND origin = $2`,
      [applicationId, origin],
    );
    return { created: false, createdAt: existing[0]!.created_at };
  }

  async removeOrigin(manager: EntityManager, applicationId: string, origin: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `DELETE FROM gateway.allowed_origins WHERE application_id = $1 AND origin = $2 RETURNING origin`,
      [applicationId, origin],
    );
    return rows.length > 0;
  }

  async listOrigins(applicationId: string, limit: number, afterOrigin?: string): Promise<Array<{ origin: string; createdAt: Date }>> {
    const rows: Array<{ origin: string; created_at: Date }> = await this.dataSource.query(
      `SELECT origin, created_at FROM gateway.allowed_origins
       WHERE application_id = $1 AND ($2::text IS NULL OR origin > $2) ORDER BY origin LIMIT $3`,
      [applicationId, afterOrigin ?? null, limit],
    );
    return rows.map((r) => ({ origin: r.origin, createdAt: r.created_at }));
  }

  async allOrigins(applicationId: string): Promise<string[]> {
    const rows: Array<{ origin: string }> = await this.dataSource.query(
      `SELECT origin FROM gateway.allowed_origins WHERE application_id = $1 ORDER BY origin`,
      [applicationId],
    );
    return rows.map((r) => r.origin);
  }
}
