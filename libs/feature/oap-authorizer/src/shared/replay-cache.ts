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
  async firstUse(
    kind: ReplayKind,
    value: string,
    expiresAt: Date,
    now: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    await this.sweep(now, manager);
    const rows: unknown[] = await manager.query(
      `INSERT INTO oap.replay_cache (kind, digest, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT ON CONSTRAINT replay_cache_pk DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE oap.replay_cache.expires_at < $4
       RETURNING digest`,
      [kind, sha256Hex(value), expiresAt, now],
    );
    return rows.length > 0;
  }

  /**
   * {@link firstUse} for several values in one statement (inside the caller's transaction): one
   * boolean per entry, in order. A value repeated within `entries` is fresh only the first time.
   * Call {@link sweep} before the transaction, not inside it.
   */
  async firstUseMany(
    manager: EntityManager,
    kind: ReplayKind,
    entries: ReadonlyArray<{ value: string; expiresAt: Date }>,
    now: Date,
  ): Promise<boolean[]> {
    if (entries.length === 0) return [];
    const recording = this.recording(kind, entries, now);
    const { sql, params } = recording.insert(1);
    const rows: Array<{ digest: string }> = await manager.query(sql, params);
    const recorded = new Set(rows.map((row) => row.digest));
    return recording.digests.map((digest, index) => !recording.repeated[index] && recorded.has(digest!));
  }

  /**
   * {@link firstUseMany} as a part of the caller's own statement (e.g. the claims of the same
   * requests, in one round trip): the insert, and per entry its value's digest (what the insert
   * returns, as column `digest`, when it records the value) and whether an earlier entry carries
   * the same value (a replay, whatever the insert records). An entry without a value has neither.
   */
  recording(kind: ReplayKind, entries: ReadonlyArray<{ value: string; expiresAt: Date } | undefined>, now: Date): ReplayRecording {
    const digests = entries.map((entry) => (entry ? sha256Hex(entry.value) : undefined));
    const firstIndex = new Map<string, number>();
    digests.forEach((digest, index) => {
      if (digest !== undefined && !firstIndex.has(digest)) firstIndex.set(digest, index);
    });
    // Inserted in digest order, so concurrent batches take the same keys in the same order (no deadlock).
    const unique = [...firstIndex.values()].sort((a, b) => (digests[a]! < digests[b]! ? -1 : 1));
    return {
      digests,
      repeated: digests.map((digest, index) => digest !== undefined && firstIndex.get(digest) !== index),
      insert: (firstParam) => {
        const [kindParam, digestsParam, expiriesParam, nowParam] = [0, 1, 2, 3].map((offset) => `$${firstParam + offset}`);
        return {
          sql: `INSERT INTO oap.replay_cache (kind, digest, expires_at)
       SELECT ${kindParam}::text, d, e FROM unnest(${digestsParam}::text[], ${expiriesParam}::timestamptz[]) AS u(d, e)
       ON CONFLICT ON CONSTRAINT replay_cache_pk DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE oap.replay_cache.expires_at < ${nowParam}::timestamptz
       RETURNING digest`,
          params: [kind, unique.map((index) => digests[index]), unique.map((index) => entries[index]!.expiresAt), now],
        };
      },
    };
  }

  /** Deletes expired values, at most once a minute (on its own, outside any batch's locks). */
  async sweep(now: Date, manager: EntityManager = this.dataSource.manager): Promise<void> {
    if (now.getTime() - this.lastSweep <= 60_000) return;
    this.lastSweep = now.getTime();
    await manager.query(`DELETE FROM oap.replay_cache WHERE expires_at < $1`, [now]);
  }
}

/** One-time values of a batch, to record as a part of a larger statement; see {@link ReplayCache.recording}. */
export interface ReplayRecording {
  /** Per entry, its value's digest; undefined for an entry without a value. */
  readonly digests: ReadonlyArray<string | undefined>;
  /** Per entry, whether an earlier entry carries the same value (a replay already). */
  readonly repeated: readonly boolean[];
  /**
   * `INSERT … RETURNING digest` of the values, with its parameters numbered from `firstParam`
   * (each with an explicit cast): it returns the digests it recorded (first use, or the earlier
   * use expired).
   */
  insert(firstParam: number): { sql: string; params: unknown[] };
}
