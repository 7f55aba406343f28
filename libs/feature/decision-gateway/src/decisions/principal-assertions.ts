import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { randomBytes } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { tokenDigest } from './session-token';

/** `pas_` + 43 URL-safe base64 characters (32 random bytes). */
export const PRINCIPAL_ASSERTION = /^pas_[A-Za-z0-9_-]{43}$/;
/** Lifetime bounds of an assertion: it only has to reach the application's page and come back. */
export const DEFAULT_ASSERTION_TTL_SECONDS = 120;
export const MAX_ASSERTION_TTL_SECONDS = 600;

/** A new assertion: the value handed to the application once, and its digest (all that is stored). */
export function mintPrincipalAssertion(): { assertion: string; sha256: string } {
  const assertion = `pas_${randomBytes(32).toString('base64url')}`;
  return { assertion, sha256: tokenDigest(assertion) };
}

/** What a consumed assertion binds. */
export interface AssertedPrincipal {
  principalId: string;
  flowId: string | null;
}

/**
 * gateway.principal_assertions: issued by the application's server with its API token, consumed
 * once by a publishable-key mint of the same application before it expires. Only the SHA-256 of
 * the assertion is stored.
 */
@Injectable()
export class PrincipalAssertionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(row: {
    sha256: string;
    applicationId: string;
    principalId: string;
    flowId: string | null;
    issuedAt: Date;
    expiresAt: Date;
  }): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO gateway.principal_assertions (assertion_sha256, application_id, principal_id, flow_id, issued_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.sha256, row.applicationId, row.principalId, row.flowId, row.issuedAt, row.expiresAt],
    );
  }

  /** Marks the assertion used and returns what it binds; undefined when unknown, another application's, expired or used. */
  async consume(manager: EntityManager, sha256: string, applicationId: string, now: Date): Promise<AssertedPrincipal | undefined> {
    const rows = await queryRows<{ principal_id: string; flow_id: string | null }>(
      manager,
      `UPDATE gateway.principal_assertions SET used_at = $3
       WHERE assertion_sha256 = $1 AND application_id = $2 AND used_at IS NULL AND expires_at > $3
       RETURNING principal_id, flow_id`,
      [sha256, applicationId, now],
    );
    return rows[0] ? { principalId: rows[0].principal_id, flowId: rows[0].flow_id } : undefined;
  }
}
