import { Injectable } from '@nestjs/common';
import { sha256Hex } from '@svc/crypto';
import { DataSource, type EntityManager } from 'typeorm';

/** Kinds of one-time values remembered by {@link ReplayCache}. */
export type ReplayKind = 'dpop' | 'agent_credential' | 'agent_attestation';

/**
 * Remembers one-time values (DPoP `jti`, `(iss, jti)` of credentials and attestations) in
 * Postgres, so every replica of the region refuses a replay. Values are stored as SHA-256 so
 * attacker-chosen strings of any length cost one fixed-size row.
 */
@Injectable()
export class ReplayCache {
  private lastSweep = 0;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Records `value` until `expiresAt`; returns false when it was already recorded (a replay).
   * Expired rows are swept at most once a minute.
   */
  async firstUse(kind: ReplayKind, value: string, expiresAt: Date, now: Date, manager: EntityManager = this.dataSource.manager): Promise<boolean> {
    if (now.getTime() - this.lastSweep > 60_000) {
      this.lastSweep = now.getTime();
      await manager.query(`DELETE FROM oap.replay_cache WHERE expires_at < $1`, [now]);
    }
    const rows: unknown[] = await manager.query(
      `INSERT INTO oap.replay_cache (kind, digest, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT ON CONSTRAINT replay_cache_pk DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE oap.replay_cache.expires_at < $4
       RETURNING digest`,
      [kind, sha256Hex(value), expiresAt, now],
    );
    return rows.length > 0;
  }
}
