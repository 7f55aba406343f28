import { Injectable } from '@nestjs/common';
import type { CounterpartyScope } from '@svc/auth';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { TrustPairing, TrustPairingRole, TrustPairingStatus } from './trust-pairing';

interface TrustPairingRow {
  id: string;
  issuer_application_id: string;
  counterparty_application_id: string;
  name: string;
  scopes: CounterpartyScope[];
  status: TrustPairingStatus;
  proposed_at: Date;
  accepted_at: Date | null;
  declined_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
  updated_at: Date;
}

const COLUMNS =
  'id, issuer_application_id, counterparty_application_id, name, scopes, status, proposed_at, accepted_at, declined_at, revoked_at, revoked_by, updated_at';

const toPairing = (r: TrustPairingRow): TrustPairing => ({
  id: r.id,
  issuerApplicationId: r.issuer_application_id,
  counterpartyApplicationId: r.counterparty_application_id,
  name: r.name,
  scopes: r.scopes,
  status: r.status,
  proposedAt: r.proposed_at,
  acceptedAt: r.accepted_at,
  declinedAt: r.declined_at,
  revokedAt: r.revoked_at,
  revokedBy: r.revoked_by,
  updatedAt: r.updated_at,
});

/** What a counterparty token resolves to: its active pairing and the issuer's environment. */
export interface CounterpartyCredential {
  pairing: TrustPairing;
  environment: string;
  region: string;
  mode: string;
}

/** Queries of gateway.trust_pairings. */
@Injectable()
export class TrustPairingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Inserts a proposal; false when an open pairing already joins the two applications in this direction. */
  async insert(manager: EntityManager, p: TrustPairing): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `INSERT INTO gateway.trust_pairings (id, issuer_application_id, counterparty_application_id, name, scopes, status, proposed_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'proposed', $6, $6)
       ON CONFLICT (issuer_application_id, counterparty_application_id) WHERE status IN ('proposed', 'active') DO NOTHING RETURNING id`,
      [p.id, p.issuerApplicationId, p.counterpartyApplicationId, p.name, p.scopes, p.proposedAt],
    );
    return rows.length > 0;
  }

  async openBetween(issuerApplicationId: string, counterpartyApplicationId: string): Promise<TrustPairing | undefined> {
    const rows = await queryRows<TrustPairingRow>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM gateway.trust_pairings WHERE issuer_application_id = $1 AND counterparty_application_id = $2 AND status IN ('proposed', 'active')`,
      [issuerApplicationId, counterpartyApplicationId],
    );
    return rows[0] ? toPairing(rows[0]) : undefined;
  }

  async find(id: string, options: { manager?: EntityManager; lock?: boolean } = {}): Promise<TrustPairing | undefined> {
    const rows = await queryRows<TrustPairingRow>(
      options.manager ?? this.dataSource.manager,
      `SELECT ${COLUMNS} FROM gateway.trust_pairings WHERE id = $1 ${options.lock ? 'FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0] ? toPairing(rows[0]) : undefined;
  }

  /** Moves a pairing to `status`, stamping the move's time; the token digest is set on activation and cleared otherwise. */
  async move(
    manager: EntityManager,
    id: string,
    status: TrustPairingStatus,
    at: Date,
    options: { tokenSha256?: string; by?: string } = {},
  ): Promise<TrustPairing> {
    const stamp = status === 'active' ? 'accepted_at' : status === 'declined' ? 'declined_at' : 'revoked_at';
    const rows = await queryRows<TrustPairingRow>(
      manager,
      `UPDATE gateway.trust_pairings SET status = $2, ${stamp} = $3, updated_at = $3, token_sha256 = $4, revoked_by = COALESCE($5, revoked_by)
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, status, at, status === 'active' ? (options.tokenSha256 ?? null) : null, options.by ?? null],
    );
    return toPairing(rows[0]!);
  }

  /** The caller's pairings on either side (or one side), oldest first, keyset after (proposed_at, id). */
  async listFor(
    applicationId: string,
    filter: { status?: TrustPairingStatus; role?: TrustPairingRole },
    limit: number,
    after?: { proposedAt: string; id: string },
  ): Promise<TrustPairing[]> {
    const params: unknown[] = [applicationId, limit, filter.status ?? null, filter.role ?? null];
    let keyset = '';
    if (after) {
      params.push(after.proposedAt, after.id);
      keyset = ' AND (proposed_at, id) > ($5::timestamptz, $6)';
    }
    const rows = await queryRows<TrustPairingRow>(
      this.dataSource.manager,
      `SELECT ${COLUMNS} FROM gateway.trust_pairings
       WHERE ((issuer_application_id = $1 AND ($4::text IS NULL OR $4 = 'issuer')) OR (counterparty_application_id = $1 AND ($4::text IS NULL OR $4 = 'counterparty')))
         AND ($3::text IS NULL OR status = $3)${keyset}
       ORDER BY proposed_at, id LIMIT $2`,
      params,
    );
    return rows.map(toPairing);
  }

  /** The active pairing a counterparty token (by its SHA-256) stands for, with the issuer's environment. */
  async findByTokenDigest(sha256Hex: string): Promise<CounterpartyCredential | undefined> {
    const rows = await queryRows<TrustPairingRow & { environment: string; region: string; mode: string }>(
      this.dataSource.manager,
      `SELECT p.id, p.issuer_application_id, p.counterparty_application_id, p.name, p.scopes, p.status, p.proposed_at, p.accepted_at, p.declined_at,
              p.revoked_at, p.revoked_by, p.updated_at, a.environment, a.region, a.mode
       FROM gateway.trust_pairings p JOIN gateway.applications a ON a.id = p.issuer_application_id
       WHERE p.token_sha256 = $1 AND p.status = 'active'`,
      [sha256Hex],
    );
    const row = rows[0];
    return row ? { pairing: toPairing(row), environment: row.environment, region: row.region, mode: row.mode } : undefined;
  }
}
