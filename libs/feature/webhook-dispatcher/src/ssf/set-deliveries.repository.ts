import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { EgressEnvironment } from '@svc/egress';

/** A SET to push to one stream. */
export interface NewSetDelivery {
  id: string;
  streamId: string;
  sourceEventId: string;
  eventType: string;
  setJwt: string;
  maxAttempts: number;
}

/** A delivery leased to a worker, with what it needs to push. */
export interface ClaimedSetDelivery {
  id: string;
  streamId: string;
  eventType: string;
  setJwt: string;
  attempts: number;
  maxAttempts: number;
  endpointUrl: string;
  environment: EgressEnvironment;
  authorizationHeaderEnc: Buffer | null;
}

/**
 * `webhooks.ssf_deliveries`: the push queue of SETs. The schedule lives here (`next_attempt_at`,
 * read against the injected clock), so it survives restarts; workers lease due rows with
 * `FOR UPDATE SKIP LOCKED`, so processes sharing the database never push the same attempt at once,
 * and a crashed worker's claims come back when the lease lapses.
 */
@Injectable()
export class SetDeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts the deliveries (a redelivered source event adds nothing); the number created. */
  async enqueue(manager: EntityManager, rows: readonly NewSetDelivery[], now: Date): Promise<number> {
    if (rows.length === 0) return 0;
    const inserted = await queryRows<{ id: string }>(
      manager,
      `INSERT INTO webhooks.ssf_deliveries (id, stream_id, source_event_id, event_type, set_jwt, max_attempts, next_attempt_at, created_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) AS t(id, stream_id, source_event_id, event_type, set_jwt, max_attempts)
       CROSS JOIN (SELECT $7::timestamptz AS next_attempt_at, $7::timestamptz AS created_at) n
       ON CONFLICT ON CONSTRAINT ssf_deliveries_event_uq DO NOTHING RETURNING id`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.streamId),
        rows.map((r) => r.sourceEventId),
        rows.map((r) => r.eventType),
        rows.map((r) => r.setJwt),
        rows.map((r) => r.maxAttempts),
        now,
      ],
    );
    return inserted.length;
  }

  /** Leases up to `limit` due deliveries of enabled streams (a paused stream's wait). */
  async claimDue(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedSetDelivery[]> {
    const rows = await queryRows<{
      id: string;
      stream_id: string;
      event_type: string;
      set_jwt: string;
      attempts: number;
      max_attempts: number;
      endpoint_url: string;
      environment: EgressEnvironment;
      authorization_header_enc: Buffer | null;
    }>(
      this.dataSource,
      `WITH due AS (
         SELECT d.id FROM webhooks.ssf_deliveries d JOIN webhooks.ssf_streams s ON s.id = d.stream_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= $2 AND (d.lease_expires_at IS NULL OR d.lease_expires_at < $2) AND s.status = 'enabled'
         ORDER BY d.next_attempt_at LIMIT $4 FOR UPDATE OF d SKIP LOCKED
       ), claimed AS (
         UPDATE webhooks.ssf_deliveries d SET lease_owner = $1, lease_expires_at = $3 FROM due WHERE d.id = due.id
         RETURNING d.id, d.stream_id, d.event_type, d.set_jwt, d.attempts, d.max_attempts
       )
       SELECT c.*, s.endpoint_url, s.environment, s.authorization_header_enc FROM claimed c JOIN webhooks.ssf_streams s ON s.id = c.stream_id`,
      [owner, now, leaseUntil, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      streamId: r.stream_id,
      eventType: r.event_type,
      setJwt: r.set_jwt,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      endpointUrl: r.endpoint_url,
      environment: r.environment,
      authorizationHeaderEnc: r.authorization_header_enc,
    }));
  }

  /** Records an attempt's outcome (only while the lease is still this owner's). */
  async record(
    owner: string,
    id: string,
    outcome: {
      status: 'pending' | 'succeeded' | 'failed';
      statusCode: number | null;
      error: string | null;
      nextAttemptAt: Date | null;
      now: Date;
    },
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE webhooks.ssf_deliveries
       SET attempts = attempts + 1, status = $3, last_status_code = $4, last_error = $5, next_attempt_at = COALESCE($6, next_attempt_at),
           completed_at = CASE WHEN $3 = 'pending' THEN NULL ELSE $7::timestamptz END, lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $1 AND lease_owner = $2`,
      [id, owner, outcome.status, outcome.statusCode, outcome.error, outcome.nextAttemptAt, outcome.now],
    );
  }
}
