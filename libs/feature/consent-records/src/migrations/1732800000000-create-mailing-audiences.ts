import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mailing-audience integrations (an application's audience in a mailing tool, bound to one flow),
 * the per-member writes of record events to the tool (`mailing_syncs`) and the tool's inbound
 * events (`mailing_inbound_events`). Both queues carry their own schedule and lease, so a crash
 * loses nothing: a write or a read-back is retried until it succeeds or fails permanently.
 */
export class CreateMailingAudiences1732800000000 implements MigrationInterface {
  name = 'CreateMailingAudiences1732800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.mailing_audiences (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        environment text NOT NULL,
        provider text NOT NULL,
        api_base_url text NOT NULL,
        api_key_enc bytea NOT NULL,
        list_id text NOT NULL,
        flow_id text NOT NULL,
        permissions jsonb NOT NULL,
        tags jsonb NOT NULL,
        webhook_secret_digest text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT mailing_audiences_flow_fk FOREIGN KEY (flow_id) REFERENCES consent_records.flows (id),
        CONSTRAINT mailing_audiences_provider_check CHECK (provider IN ('mailchimp')),
        CONSTRAINT mailing_audiences_environment_check CHECK (environment IN ('development', 'production'))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX mailing_audiences_list_uq ON consent_records.mailing_audiences (application_id, flow_id, list_id)`,
    );
    await runner.query(`CREATE UNIQUE INDEX mailing_audiences_secret_uq ON consent_records.mailing_audiences (webhook_secret_digest)`);
    await runner.query(
      `CREATE INDEX mailing_audiences_created_idx ON consent_records.mailing_audiences (application_id, created_at DESC, id DESC)`,
    );

    await runner.query(`
      CREATE TABLE consent_records.mailing_syncs (
        id bigserial PRIMARY KEY,
        audience_id text NOT NULL REFERENCES consent_records.mailing_audiences (id) ON DELETE CASCADE,
        event_id text NOT NULL,
        event_type text NOT NULL,
        record_id text NOT NULL,
        email text,
        email_key text,
        permissions jsonb NOT NULL,
        tags jsonb NOT NULL,
        status text NOT NULL,
        occurred_at timestamptz NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_expires_at timestamptz,
        last_status_code integer,
        last_error text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT mailing_syncs_status_check CHECK (status IN ('pending', 'written', 'failed', 'skipped'))
      )`);
    await runner.query(`CREATE UNIQUE INDEX mailing_syncs_event_uq ON consent_records.mailing_syncs (audience_id, event_id)`);
    await runner.query(`CREATE INDEX mailing_syncs_due_idx ON consent_records.mailing_syncs (next_attempt_at) WHERE status = 'pending'`);
    await runner.query(`CREATE INDEX mailing_syncs_audience_idx ON consent_records.mailing_syncs (audience_id, id DESC)`);
    await runner.query(
      `CREATE INDEX mailing_syncs_member_idx ON consent_records.mailing_syncs (audience_id, email_key, occurred_at) WHERE status = 'pending'`,
    );

    await runner.query(`
      CREATE TABLE consent_records.mailing_inbound_events (
        id bigserial PRIMARY KEY,
        audience_id text NOT NULL REFERENCES consent_records.mailing_audiences (id) ON DELETE CASCADE,
        type text NOT NULL,
        email text,
        email_key text,
        list_id text,
        fired_at text,
        status text NOT NULL,
        outcome text,
        record_id text,
        withdrawn_purposes text[] NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_expires_at timestamptz,
        last_status_code integer,
        last_error text,
        received_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT mailing_inbound_status_check CHECK (status IN ('pending', 'withdrawn', 'ignored', 'failed'))
      )`);
    await runner.query(`CREATE INDEX mailing_inbound_audience_idx ON consent_records.mailing_inbound_events (audience_id, id DESC)`);
    await runner.query(
      `CREATE INDEX mailing_inbound_due_idx ON consent_records.mailing_inbound_events (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE consent_records.mailing_inbound_events`);
    await runner.query(`DROP TABLE consent_records.mailing_syncs`);
    await runner.query(`DROP TABLE consent_records.mailing_audiences`);
  }
}
