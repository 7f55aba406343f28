import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { SsfStream, StreamStatus } from './ssf-stream';

interface StreamRow {
  id: string;
  application_id: string;
  environment: SsfStream['environment'];
  audience: string[];
  events_requested: string[];
  endpoint_url: string;
  authorization_header_enc: Buffer | null;
  description: string | null;
  status: StreamStatus;
  status_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  'id, application_id, environment, audience, events_requested, endpoint_url, authorization_header_enc, description, status, status_reason, created_at, updated_at';

function streamOf(row: StreamRow): SsfStream {
  return {
    id: row.id,
    applicationId: row.application_id,
    environment: row.environment,
    audience: row.audience,
    eventsRequested: row.events_requested,
    endpointUrl: row.endpoint_url,
    authorizationHeaderEnc: row.authorization_header_enc,
    description: row.description,
    status: row.status,
    statusReason: row.status_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** `webhooks.ssf_streams`: the receivers' stream configurations. */
@Injectable()
export class SsfStreamsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Serialises stream creation of one application (the per-application limit). */
  async lockApplication(manager: EntityManager, applicationId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('webhooks.ssf_streams'), hashtext($1))`, [applicationId]);
  }

  async countForApplication(manager: EntityManager, applicationId: string): Promise<number> {
    const rows = await queryRows<{ n: number }>(manager, `SELECT count(*)::int AS n FROM webhooks.ssf_streams WHERE application_id = $1`, [
      applicationId,
    ]);
    return rows[0]?.n ?? 0;
  }

  /** The stream created with this Idempotency-Key, and the fingerprint of the request that created it. */
  async findByIdempotencyKey(
    manager: EntityManager,
    applicationId: string,
    key: string,
  ): Promise<{ stream: SsfStream; fingerprint: string } | undefined> {
    const rows = await queryRows<StreamRow & { request_fingerprint: string }>(
      manager,
      `SELECT ${COLUMNS}, request_fingerprint FROM webhooks.ssf_streams WHERE application_id = $1 AND idempotency_key = $2`,
      [applicationId, key],
    );
    return rows[0] ? { stream: streamOf(rows[0]), fingerprint: rows[0].request_fingerprint } : undefined;
  }

  async insert(manager: EntityManager, stream: SsfStream, idempotency: { key: string; fingerprint: string } | undefined): Promise<void> {
    await manager.query(
      `INSERT INTO webhooks.ssf_streams (id, application_id, environment, audience, events_requested, endpoint_url, authorization_header_enc, description, status, status_reason, idempotency_key, request_fingerprint, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        stream.id,
        stream.applicationId,
        stream.environment,
        stream.audience,
        stream.eventsRequested,
        stream.endpointUrl,
        stream.authorizationHeaderEnc,
        stream.description,
        stream.status,
        stream.statusReason,
        idempotency?.key ?? null,
        idempotency?.fingerprint ?? null,
        stream.createdAt,
        stream.updatedAt,
      ],
    );
  }

  /** The application's stream, or undefined (another application's is undefined too). */
  async find(
    applicationId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<SsfStream | undefined> {
    const rows = await queryRows<StreamRow>(
      manager,
      `SELECT ${COLUMNS} FROM webhooks.ssf_streams WHERE application_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [applicationId, id],
    );
    return rows[0] ? streamOf(rows[0]) : undefined;
  }

  /** The application's streams, oldest first (at most the per-application limit). */
  async listFor(applicationId: string, limit: number): Promise<SsfStream[]> {
    const rows = await queryRows<StreamRow>(
      this.dataSource,
      `SELECT ${COLUMNS} FROM webhooks.ssf_streams WHERE application_id = $1 ORDER BY created_at, id LIMIT $2`,
      [applicationId, limit],
    );
    return rows.map(streamOf);
  }

  /** Streams of these applications that take events now or hold them (`enabled`, `paused`). */
  async receivingOf(manager: EntityManager, applicationIds: readonly string[]): Promise<SsfStream[]> {
    const rows = await queryRows<StreamRow>(
      manager,
      `SELECT ${COLUMNS} FROM webhooks.ssf_streams WHERE application_id = ANY($1::text[]) AND status <> 'disabled'`,
      [applicationIds],
    );
    return rows.map(streamOf);
  }

  async update(manager: EntityManager, stream: SsfStream): Promise<void> {
    await manager.query(
      `UPDATE webhooks.ssf_streams SET audience = $2, events_requested = $3, endpoint_url = $4, authorization_header_enc = $5, description = $6, status = $7, status_reason = $8, updated_at = $9 WHERE id = $1`,
      [
        stream.id,
        stream.audience,
        stream.eventsRequested,
        stream.endpointUrl,
        stream.authorizationHeaderEnc,
        stream.description,
        stream.status,
        stream.statusReason,
        stream.updatedAt,
      ],
    );
  }

  /** Deletes the stream and its pending deliveries; false when the application has no such stream. */
  async delete(applicationId: string, id: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM webhooks.ssf_streams WHERE application_id = $1 AND id = $2 RETURNING id`,
      [applicationId, id],
    );
    return rows.length > 0;
  }
}
