import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { Authority, AuthorityStatus } from './authority';
import { AUTHORITY_COLUMNS, toAuthority, type AuthorityRow } from './authority-row';

/** Queries of authorities. */
@Injectable()
export class AuthoritiesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(
    manager: EntityManager,
    authority: Omit<Authority, 'revokedAt' | 'bounds'>,
    proposalTokenSha256: string | null = null,
  ): Promise<Authority> {
    const rows: AuthorityRow[] = await manager.query(
      `INSERT INTO oap.authorities (id, application_id, agent_id, principal_id, status, bounds_json, purposes, valid_from, valid_until, cooling_off_seconds, manifest_sha256, created_at, updated_at, proposal_token_sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13) RETURNING ${AUTHORITY_COLUMNS}`,
      [
        authority.id,
        authority.applicationId,
        authority.agentId,
        authority.principalId,
        authority.status,
        authority.boundsJson,
        authority.purposes,
        authority.validFrom,
        authority.validUntil,
        authority.coolingOffSeconds,
        authority.manifestSha256,
        authority.createdAt,
        proposalTokenSha256,
      ],
    );
    return toAuthority(rows[0]!);
  }

  /** The authorities a person granted (they are the principal), active or suspended, oldest first. */
  async inForceForPrincipal(personId: string, applicationId: string | undefined): Promise<Authority[]> {
    const rows: AuthorityRow[] = await this.dataSource.query(
      `SELECT ${AUTHORITY_COLUMNS} FROM oap.authorities
       WHERE principal_id = $1 AND status IN ('active', 'suspended') AND ($2::text IS NULL OR application_id = $2)
       ORDER BY created_at, id LIMIT 1000`,
      [personId, applicationId ?? null],
    );
    return rows.map(toAuthority);
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager): Promise<Authority | undefined> {
    const rows: AuthorityRow[] = await manager.query(`SELECT ${AUTHORITY_COLUMNS} FROM oap.authorities WHERE id = $1`, [id]);
    return rows[0] ? toAuthority(rows[0]) : undefined;
  }

  /** The authority a proposal page's token (by its digest) stands for. */
  async findByProposalToken(tokenSha256: string, manager: EntityManager = this.dataSource.manager): Promise<Authority | undefined> {
    const rows: AuthorityRow[] = await manager.query(`SELECT ${AUTHORITY_COLUMNS} FROM oap.authorities WHERE proposal_token_sha256 = $1`, [
      tokenSha256,
    ]);
    return rows[0] ? toAuthority(rows[0]) : undefined;
  }

  /** Grants (principal set, active) or declines a still-proposed authority; undefined when it was no longer proposed. */
  async settleProposal(
    manager: EntityManager,
    id: string,
    outcome: { status: 'active'; principalId: string } | { status: 'declined' },
    at: Date,
  ): Promise<Authority | undefined> {
    const rows = await queryRows<AuthorityRow>(
      manager,
      `UPDATE oap.authorities SET status = $2, principal_id = $3, updated_at = $4 WHERE id = $1 AND status = 'proposed' RETURNING ${AUTHORITY_COLUMNS}`,
      [id, outcome.status, outcome.status === 'active' ? outcome.principalId : null, at],
    );
    return rows[0] ? toAuthority(rows[0]) : undefined;
  }

  /** Non-revoked, non-declined authorities of an agent, newest first (at most `limit`). */
  async currentForAgent(agentId: string, limit = 2): Promise<Authority[]> {
    const rows: AuthorityRow[] = await this.dataSource.query(
      `SELECT ${AUTHORITY_COLUMNS} FROM oap.authorities WHERE agent_id = $1 AND status NOT IN ('revoked', 'declined') ORDER BY created_at DESC, id DESC LIMIT $2`,
      [agentId, limit],
    );
    return rows.map(toAuthority);
  }

  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<Authority[]> {
    const rows: AuthorityRow[] = await this.dataSource.query(
      `SELECT ${AUTHORITY_COLUMNS} FROM oap.authorities WHERE application_id = $1
         AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
       ORDER BY created_at, id LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toAuthority);
  }

  /** Moves an authority from one of `from` to `to`; undefined when it was in another state. */
  async transition(
    manager: EntityManager,
    id: string,
    from: readonly AuthorityStatus[],
    to: AuthorityStatus,
    at: Date,
  ): Promise<Authority | undefined> {
    const rows = await queryRows<AuthorityRow>(
      manager,
      `UPDATE oap.authorities SET status = $3, updated_at = $4, revoked_at = CASE WHEN $3 = 'revoked' THEN $4 ELSE revoked_at END
       WHERE id = $1 AND status = ANY($2::text[]) RETURNING ${AUTHORITY_COLUMNS}`,
      [id, from, to, at],
    );
    return rows[0] ? toAuthority(rows[0]) : undefined;
  }
}
