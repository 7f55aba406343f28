import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { TrustScoreInputs } from './trust-score';
import type { SubjectType, Vouch, VouchReasonCode, VoucherType } from './vouch';

interface VouchRow {
  id: string;
  application_id: string;
  voucher_type: VoucherType;
  voucher_id: string;
  subject_type: SubjectType;
  subject_id: string;
  weight: number;
  reason_code: VouchReasonCode;
  expires_at: Date;
  created_at: Date;
  revoked_at: Date | null;
  request_sha256: string;
}

const COLUMNS =
  'id, application_id, voucher_type, voucher_id, subject_type, subject_id, weight, reason_code, expires_at, created_at, revoked_at, request_sha256';

function toVouch(row: VouchRow): Vouch {
  return {
    id: row.id,
    applicationId: row.application_id,
    voucherType: row.voucher_type,
    voucherId: row.voucher_id,
    subjectType: row.subject_type,
    subjectId: row.subject_id,
    weight: row.weight,
    reasonCode: row.reason_code,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** Queries of `oap.vouches` and of the history the trust score reads. */
@Injectable()
export class VouchesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /**
   * Inserts the vouch unless the voucher already holds an active one for the subject (the unique
   * partial index decides under concurrency); false then.
   */
  /** Marks the voucher's expired vouch for the subject as applied, so a new one may be made at once. */
  async retireExpiredPair(manager: EntityManager, voucherId: string, subjectId: string, now: Date): Promise<void> {
    await manager.query(
      `UPDATE oap.vouches SET expiry_applied = true WHERE voucher_id = $1 AND subject_id = $2 AND revoked_at IS NULL AND NOT expiry_applied AND expires_at <= $3`,
      [voucherId, subjectId, now],
    );
  }

  async insert(manager: EntityManager, vouch: Vouch, idempotencyKey: string | null, requestSha256: string): Promise<boolean> {
    const rows = await queryRows(
      manager,
      `INSERT INTO oap.vouches (id, application_id, voucher_type, voucher_id, subject_type, subject_id, weight, reason_code, expires_at, idempotency_key, request_sha256, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
       ON CONFLICT (voucher_id, subject_id) WHERE revoked_at IS NULL AND NOT expiry_applied DO NOTHING RETURNING id`,
      [
        vouch.id,
        vouch.applicationId,
        vouch.voucherType,
        vouch.voucherId,
        vouch.subjectType,
        vouch.subjectId,
        vouch.weight,
        vouch.reasonCode,
        vouch.expiresAt,
        idempotencyKey,
        requestSha256,
        vouch.createdAt,
      ],
    );
    return rows.length > 0;
  }

  /** The vouch an earlier request with this Idempotency-Key created, with its request digest. */
  async findByIdempotencyKey(applicationId: string, key: string): Promise<{ vouch: Vouch; requestSha256: string } | undefined> {
    const rows: VouchRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oap.vouches WHERE application_id = $1 AND idempotency_key = $2`,
      [applicationId, key],
    );
    return rows[0] ? { vouch: toVouch(rows[0]), requestSha256: rows[0].request_sha256 } : undefined;
  }

  async find(id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<Vouch | undefined> {
    const rows: VouchRow[] = await manager.query(`SELECT ${COLUMNS} FROM oap.vouches WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    return rows[0] ? toVouch(rows[0]) : undefined;
  }

  /** The voucher's vouches created since `since` (the per-day limit). */
  async countSince(manager: EntityManager, voucherId: string, since: Date): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM oap.vouches WHERE voucher_id = $1 AND created_at >= $2`,
      [voucherId, since],
    );
    return rows[0]?.n ?? 0;
  }

  /** Serialises a voucher's creations so the daily count cannot be raced past. */
  async lockVoucher(manager: EntityManager, voucherId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [`oap.vouches:${voucherId}`]);
  }

  async revoke(manager: EntityManager, id: string, at: Date): Promise<void> {
    await manager.query(`UPDATE oap.vouches SET revoked_at = $2 WHERE id = $1`, [id, at]);
  }

  /** Vouches the caller's application made, newest last (cursor pagination), optionally of one subject. */
  async list(
    applicationId: string,
    limit: number,
    subject: string | undefined,
    after?: { createdAt: string; id: string },
  ): Promise<Vouch[]> {
    const rows: VouchRow[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM oap.vouches WHERE application_id = $1 AND ($2::text IS NULL OR subject_id = $2)
         AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4))
       ORDER BY created_at, id LIMIT $5`,
      [applicationId, subject ?? null, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toVouch);
  }

  /** Whether the agent exists in this region. */
  async agentExists(manager: EntityManager, agentId: string): Promise<boolean> {
    return (await queryRows(manager, `SELECT 1 FROM oap.agents WHERE id = $1`, [agentId])).length > 0;
  }

  /** Every input of the trust-score formula for the subject at `now`. */
  async scoreInputs(manager: EntityManager, subjectId: string, now: Date): Promise<TrustScoreInputs> {
    const rows = await queryRows<TrustScoreInputs>(
      manager,
      `SELECT
         (SELECT count(*)::int FROM oap.vouches v WHERE v.subject_id = $1 AND v.revoked_at IS NULL AND v.expires_at > $2) AS vouch_count,
         (SELECT coalesce(sum(weight), 0)::int FROM oap.vouches v WHERE v.subject_id = $1 AND v.revoked_at IS NULL AND v.expires_at > $2) AS vouch_weight_total,
         (SELECT count(*)::int FROM oap.decisions d WHERE d.agent_id = $1 AND d.decision = 'allow' AND d.created_at > $2::timestamptz - interval '90 days') AS allowed_grants_90d,
         (SELECT count(*)::int FROM oap.attestation_tokens a JOIN oap.grants g ON g.id = a.grant_id WHERE g.agent_id = $1 AND a.created_at > $2::timestamptz - interval '90 days') AS attestations_90d,
         (SELECT count(*)::int FROM oap.revocations r JOIN oap.grants g ON g.id = r.grant_id WHERE g.agent_id = $1 AND r.revoked_at > $2::timestamptz - interval '90 days') AS revoked_grants_90d,
         (SELECT count(*)::int FROM oap.decisions d WHERE d.agent_id = $1 AND d.decision = 'deny' AND coalesce(d.cascade_step, 0) <> 9 AND d.created_at > $2::timestamptz - interval '30 days') AS denials_30d`,
      [subjectId, now],
    );
    return rows[0]!;
  }

  /** Keeps step 9's snapshot on the agent's row current (no-op for a person). */
  async storeAgentReputation(manager: EntityManager, agentId: string, trustScore: number, vouchCount: number, at: Date): Promise<void> {
    await manager.query(`UPDATE oap.agents SET trust_score = $2, vouch_count = $3, updated_at = $4 WHERE id = $1`, [
      agentId,
      trustScore,
      vouchCount,
      at,
    ]);
  }

  /** Active vouches past their expiry not yet applied to the snapshot (claimed, skip-locked). */
  async claimExpired(
    manager: EntityManager,
    now: Date,
    limit: number,
  ): Promise<Array<{ id: string; subjectId: string; subjectType: SubjectType }>> {
    const rows = await queryRows<{ id: string; subject_id: string; subject_type: SubjectType }>(
      manager,
      `UPDATE oap.vouches SET expiry_applied = true WHERE id IN (
         SELECT id FROM oap.vouches WHERE revoked_at IS NULL AND NOT expiry_applied AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id, subject_id, subject_type`,
      [now, limit],
    );
    return rows.map((row) => ({ id: row.id, subjectId: row.subject_id, subjectType: row.subject_type }));
  }
}
