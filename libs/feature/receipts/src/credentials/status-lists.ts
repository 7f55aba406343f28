import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { StatusList } from '@sd-jwt/jwt-status-list';
import { Clock, PlatformConfig } from '@svc/config';
import { signCompactJws } from '@svc/crypto';
import { SigningKeyStore } from '@svc/key-store';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { STATUS_LIST_PATH } from './issuer-identity';

/** Entries per status list (16 Ki: a 2 KiB bit field before compression). */
export const STATUS_LIST_SIZE = 16_384;

/**
 * Seconds a verifier may cache a status list token (`ttl` claim and `Cache-Control`). With the
 * withdrawal event's delivery (about a second) this keeps a revocation visible everywhere well
 * under the spec's revocation propagation limit of 30 s.
 */
export const STATUS_LIST_TTL_SECONDS = 10;

/** Status values (draft-ietf-oauth-status-list §7.1). */
export const STATUS_VALID = 0;
export const STATUS_INVALID = 1;

/**
 * A uniformly random free position of a list's allocation bytes (0 free, else taken): the k-th free
 * position for k drawn from [0, free count) with `random` (a CSPRNG in production). Undefined when
 * every position is taken.
 */
export function pickFreePosition(allocated: Uint8Array, random: (bound: number) => number): number | undefined {
  let free = 0;
  for (const byte of allocated) if (byte === 0) free += 1;
  if (free === 0) return undefined;
  let k = random(free);
  if (!Number.isInteger(k) || k < 0 || k >= free) throw new RangeError('random position out of range');
  for (let index = 0; index < allocated.length; index++) {
    if (allocated[index] !== 0) continue;
    if (k === 0) return index;
    k -= 1;
  }
  return undefined;
}

interface StatusListRow {
  id: string;
  size: number;
  statuses: Buffer;
  updated_at: Date;
}

/**
 * The region's IETF Token Status Lists (draft-ietf-oauth-status-list): one bit per credential
 * (0 valid, 1 invalid), stored as a byte per entry, handed out at random positions, and served as a signed `statuslist+jwt` built at
 * request time, so a revocation is visible from its commit on.
 */
@Injectable()
export class StatusLists {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SigningKeyStore,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /** The public URI of a status list. */
  uri(listId: string): string {
    return `${this.config.publicBaseUrl}${STATUS_LIST_PATH}/${listId}`;
  }

  /**
   * Takes a random unused position of the region's current list (a new list when it is full),
   * under the list's row lock: two issuances never share a position (the credentials' unique
   * `(status_list_id, status_index)` says so too), and every free position is equally likely.
   */
  async allocate(manager: EntityManager, random: (bound: number) => number = randomInt): Promise<{ listId: string; index: number }> {
    for (;;) {
      const rows = await queryRows<{ id: string; allocated: Buffer; used_count: number }>(
        manager,
        `SELECT id, allocated, used_count FROM receipts.status_lists WHERE used_count < size ORDER BY updated_at DESC, id LIMIT 1 FOR UPDATE`,
      );
      const row = rows[0];
      if (row) {
        const index = pickFreePosition(row.allocated, random);
        if (index !== undefined) {
          await manager.query(
            `UPDATE receipts.status_lists SET allocated = set_byte(allocated, $2, 1), used_count = used_count + 1 WHERE id = $1`,
            [row.id, index],
          );
          return { listId: row.id, index };
        }
        // A count out of step with the bytes (never expected): mark the list full and move on.
        await manager.query(`UPDATE receipts.status_lists SET used_count = size WHERE id = $1`, [row.id]);
        continue;
      }
      // The list this waited for filled up meanwhile (the lock's recheck drops it): another with room first.
      const open = await queryRows(manager, `SELECT id FROM receipts.status_lists WHERE used_count < size LIMIT 1`);
      if (open.length > 0) continue;
      const count = await queryRows<{ n: number }>(manager, `SELECT count(*)::int AS n FROM receipts.status_lists`);
      const id = `${this.config.REGION}-${(count[0]?.n ?? 0) + 1}`;
      await manager.query(
        `INSERT INTO receipts.status_lists (id, size, statuses, allocated, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
        [id, STATUS_LIST_SIZE, Buffer.alloc(STATUS_LIST_SIZE), Buffer.alloc(STATUS_LIST_SIZE), this.clock.now()],
      );
    }
  }

  /** Marks an entry invalid (idempotent). */
  async invalidate(manager: EntityManager, listId: string, index: number): Promise<void> {
    await manager.query(`UPDATE receipts.status_lists SET statuses = set_byte(statuses, $2, $3), updated_at = $4 WHERE id = $1`, [
      listId,
      index,
      STATUS_INVALID,
      this.clock.now(),
    ]);
  }

  /** The signed status list token of `listId`, or undefined when the region has no such list. */
  async token(listId: string): Promise<string | undefined> {
    const rows: StatusListRow[] = await this.dataSource.query(
      `SELECT id, size, statuses, updated_at FROM receipts.status_lists WHERE id = $1`,
      [listId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const list = new StatusList([...row.statuses], 1);
    const iat = Math.floor(this.clock.now().getTime() / 1000);
    return signCompactJws(
      await this.keys.activeKey(),
      {
        sub: this.uri(listId),
        iat,
        exp: iat + 24 * 3600,
        ttl: STATUS_LIST_TTL_SECONDS,
        status_list: { bits: 1, lst: list.compressStatusList() },
      },
      { typ: 'statuslist+jwt' },
    );
  }
}
