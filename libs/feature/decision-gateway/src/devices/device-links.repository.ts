import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { DeviceLink } from './device-link';

interface DeviceLinkRow {
  id: string;
  person_id: string;
  status: DeviceLink['status'];
  code_expires_at: Date;
  device_name: string | null;
  push_endpoint: string | null;
  push_p256dh: string | null;
  push_auth: string | null;
  created_at: Date;
  linked_at: Date | null;
  revoked_at: Date | null;
  last_push_at: Date | null;
  last_push_status: number | null;
}

const COLUMNS = `id, person_id, status, code_expires_at, device_name, push_endpoint, push_p256dh, push_auth, created_at, linked_at, revoked_at, last_push_at, last_push_status`;

function toLink(row: DeviceLinkRow): DeviceLink {
  return {
    id: row.id,
    personId: row.person_id,
    status: row.status,
    codeExpiresAt: row.code_expires_at,
    deviceName: row.device_name,
    pushEndpoint: row.push_endpoint,
    pushP256dh: row.push_p256dh,
    pushAuth: row.push_auth,
    createdAt: row.created_at,
    linkedAt: row.linked_at,
    revokedAt: row.revoked_at,
    lastPushAt: row.last_push_at,
    lastPushStatus: row.last_push_status,
  };
}

/** SQL of `gateway.device_links`. */
@Injectable()
export class DeviceLinksRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a pending link unless the person already holds `max` live (pending unexpired or active) links. */
  async insertPending(
    link: { id: string; personId: string; codeSha256: string; codeExpiresAt: Date; createdAt: Date },
    max: number,
  ): Promise<DeviceLink | undefined> {
    return this.dataSource.transaction(async (manager: EntityManager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('device_links:' || $1))`, [link.personId]);
      const [count] = await queryRows<{ n: number }>(
        manager,
        `SELECT count(*)::int AS n FROM gateway.device_links WHERE person_id = $1 AND (status = 'active' OR (status = 'pending' AND code_expires_at > $2))`,
        [link.personId, link.createdAt],
      );
      if ((count?.n ?? 0) >= max) return undefined;
      const rows = await queryRows<DeviceLinkRow>(
        manager,
        `INSERT INTO gateway.device_links (id, person_id, status, code_sha256, code_expires_at, created_at) VALUES ($1, $2, 'pending', $3, $4, $5) RETURNING ${COLUMNS}`,
        [link.id, link.personId, link.codeSha256, link.codeExpiresAt, link.createdAt],
      );
      return rows[0] ? toLink(rows[0]) : undefined;
    });
  }

  /** Uses a link code once: the pending link becomes active with the phone's subscription. */
  async claim(
    codeSha256: string,
    now: Date,
    device: { name: string | null; endpoint: string; p256dh: string; auth: string },
  ): Promise<DeviceLink | undefined> {
    const rows = await queryRows<DeviceLinkRow>(
      this.dataSource,
      `UPDATE gateway.device_links SET status = 'active', code_sha256 = NULL, device_name = $3, push_endpoint = $4, push_p256dh = $5, push_auth = $6, linked_at = $2
        WHERE code_sha256 = $1 AND status = 'pending' AND code_expires_at > $2 RETURNING ${COLUMNS}`,
      [codeSha256, now, device.name, device.endpoint, device.p256dh, device.auth],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  /** True when a pending, unexpired link has this code. */
  async pendingCodeExists(codeSha256: string, now: Date): Promise<boolean> {
    const rows = await queryRows(
      this.dataSource,
      `SELECT 1 FROM gateway.device_links WHERE code_sha256 = $1 AND status = 'pending' AND code_expires_at > $2`,
      [codeSha256, now],
    );
    return rows.length > 0;
  }

  /** A person's links, oldest first (revoked ones included: the list is their history). */
  async listOfPerson(personId: string, limit: number, after?: { createdAt: string; id: string }): Promise<DeviceLink[]> {
    const rows = await queryRows<DeviceLinkRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM gateway.device_links WHERE person_id = $1 ${after ? 'AND (created_at, id) > ($3::timestamptz, $4)' : ''} ORDER BY created_at, id LIMIT $2`,
      after ? [personId, limit, after.createdAt, after.id] : [personId, limit],
    );
    return rows.map(toLink);
  }

  /** The active links of people (the ones pushes go to). */
  async activeOf(personIds: string[]): Promise<DeviceLink[]> {
    if (personIds.length === 0) return [];
    const rows = await queryRows<DeviceLinkRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM gateway.device_links WHERE person_id = ANY($1::text[]) AND status = 'active' ORDER BY created_at, id`,
      [personIds],
    );
    return rows.map(toLink);
  }

  /** Revokes one of a person's links; the link as it stands afterwards, or undefined when it is not theirs. */
  async revoke(personId: string, id: string, now: Date): Promise<DeviceLink | undefined> {
    const rows = await queryRows<DeviceLinkRow>(
      this.dataSource,
      `UPDATE gateway.device_links SET status = 'revoked', revoked_at = COALESCE(revoked_at, $3), code_sha256 = NULL, push_endpoint = NULL, push_p256dh = NULL, push_auth = NULL
        WHERE id = $1 AND person_id = $2 RETURNING ${COLUMNS}`,
      [id, personId, now],
    );
    return rows[0] ? toLink(rows[0]) : undefined;
  }

  async recordPush(id: string, at: Date, status: number): Promise<void> {
    await this.dataSource.query(`UPDATE gateway.device_links SET last_push_at = $2, last_push_status = $3 WHERE id = $1`, [id, at, status]);
  }
}
