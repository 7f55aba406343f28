import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { DelegationAction, DelegationGrant, DelegationStatus, DelegationType } from './delegation-grant';

interface GrantRow {
  id: string;
  type: DelegationType;
  principal_person_id: string;
  delegate_person_id: string;
  application_id: string;
  surfaces: string[];
  actions: DelegationAction[];
  status: DelegationStatus;
  purpose: string | null;
  evidence_reference: string | null;
  expires_at: Date;
  created_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
  transfer_lawful_basis: string | null;
  transfer_derogation_article: string | null;
  transfer_id: string | null;
}

function toGrant(row: GrantRow): DelegationGrant {
  return {
    id: row.id,
    type: row.type,
    principalPersonId: row.principal_person_id,
    delegatePersonId: row.delegate_person_id,
    applicationId: row.application_id,
    surfaces: row.surfaces,
    actions: row.actions,
    status: row.status,
    purpose: row.purpose,
    evidenceReference: row.evidence_reference,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    acceptedAt: row.accepted_at,
    revokedAt: row.revoked_at,
    revokedBy: row.revoked_by,
    transfer:
      row.transfer_lawful_basis && row.transfer_id
        ? { lawfulBasis: row.transfer_lawful_basis, derogationArticle: row.transfer_derogation_article, transferId: row.transfer_id }
        : null,
  };
}

const COLUMNS = `id, type, principal_person_id, delegate_person_id, application_id, surfaces, actions, status, purpose, evidence_reference, expires_at, created_at, accepted_at, revoked_at, revoked_by,
  transfer_lawful_basis, transfer_derogation_article, transfer_id`;

/** Queries of delegation grants (gateway schema). */
@Injectable()
export class DelegationsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<DelegationGrant | undefined> {
    const rows: GrantRow[] = await queryRows(
      manager,
      `SELECT ${COLUMNS} FROM gateway.delegation_grants WHERE id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toGrant(rows[0]) : undefined;
  }

  async personExists(manager: EntityManager, personId: string): Promise<boolean> {
    const rows = await queryRows(manager, `SELECT 1 FROM gateway.people WHERE id = $1`, [personId]);
    return rows.length > 0;
  }

  /** Inserts the grant (retries are answered by the platform's Idempotency-Key store, before this runs). */
  async insert(manager: EntityManager, grant: DelegationGrant): Promise<DelegationGrant> {
    const rows: GrantRow[] = await queryRows(
      manager,
      `INSERT INTO gateway.delegation_grants (id, type, principal_person_id, delegate_person_id, application_id, surfaces, actions, status, purpose, evidence_reference, expires_at, created_at,
         transfer_lawful_basis, transfer_derogation_article, transfer_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       RETURNING ${COLUMNS}`,
      [
        grant.id,
        grant.type,
        grant.principalPersonId,
        grant.delegatePersonId,
        grant.applicationId,
        grant.surfaces,
        grant.actions,
        grant.status,
        grant.purpose,
        grant.evidenceReference,
        grant.expiresAt,
        grant.createdAt,
        grant.transfer?.lawfulBasis ?? null,
        grant.transfer?.derogationArticle ?? null,
        grant.transfer?.transferId ?? null,
      ],
    );
    return toGrant(rows[0]!);
  }

  async accept(manager: EntityManager, id: string, now: Date): Promise<DelegationGrant> {
    const rows: GrantRow[] = await queryRows(
      manager,
      `UPDATE gateway.delegation_grants SET status = 'active', accepted_at = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now],
    );
    return toGrant(rows[0]!);
  }

  async revoke(manager: EntityManager, id: string, by: string, now: Date): Promise<DelegationGrant> {
    const rows: GrantRow[] = await queryRows(
      manager,
      `UPDATE gateway.delegation_grants SET status = 'revoked', revoked_at = $2, revoked_by = $3 WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, now, by],
    );
    return toGrant(rows[0]!);
  }

  /** Grants where the person is the principal or the delegate, oldest first, keyset after (created_at, id). */
  async listFor(
    personId: string,
    role: 'principal' | 'delegate' | undefined,
    limit: number,
    after?: { createdAt: string; id: string },
  ): Promise<DelegationGrant[]> {
    const who =
      role === 'principal'
        ? 'principal_person_id = $1'
        : role === 'delegate'
          ? 'delegate_person_id = $1'
          : '(principal_person_id = $1 OR delegate_person_id = $1)';
    const params: unknown[] = [personId, limit];
    let keyset = '';
    if (after) {
      params.push(after.createdAt, after.id);
      keyset = ' AND (created_at, id) > ($3::timestamptz, $4)';
    }
    const rows: GrantRow[] = await queryRows(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM gateway.delegation_grants WHERE ${who}${keyset} ORDER BY created_at, id LIMIT $2`,
      params,
    );
    return rows.map(toGrant);
  }
}
