import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared Signals streams (SSF 1.0) and their push deliveries (RFC 8935). A delivery holds the
 * signed SET it sends, so every retry sends the very same token; it is unique per stream and source
 * event, so a redelivered bus event never doubles a SET.
 */
export class CreateSsfStreams1802000000000 implements MigrationInterface {
  name = 'CreateSsfStreams1802000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE webhooks.ssf_streams (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        environment text NOT NULL,
        audience text[] NOT NULL,
        events_requested text[] NOT NULL,
        endpoint_url text NOT NULL,
        authorization_header_enc bytea,
        description text,
        status text NOT NULL DEFAULT 'enabled',
        status_reason text,
        idempotency_key text,
        request_fingerprint text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT ssf_streams_status_check CHECK (status IN ('enabled', 'paused', 'disabled'))
      )`);
    await runner.query(`CREATE INDEX ssf_streams_application_idx ON webhooks.ssf_streams (application_id, created_at, id)`);
    await runner.query(
      `CREATE UNIQUE INDEX ssf_streams_idempotency_key_uq ON webhooks.ssf_streams (application_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await runner.query(`
      CREATE TABLE webhooks.ssf_deliveries (
        id text PRIMARY KEY,
        stream_id text NOT NULL REFERENCES webhooks.ssf_streams (id) ON DELETE CASCADE,
        source_event_id text NOT NULL,
        event_type text NOT NULL,
        set_jwt text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL,
        next_attempt_at timestamptz NOT NULL,
        lease_owner text,
        lease_expires_at timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT ssf_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
        CONSTRAINT ssf_deliveries_event_uq UNIQUE (stream_id, source_event_id)
      )`);
    await runner.query(`CREATE INDEX ssf_deliveries_due_idx ON webhooks.ssf_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE webhooks.ssf_deliveries`);
    await runner.query(`DROP TABLE webhooks.ssf_streams`);
  }
}
