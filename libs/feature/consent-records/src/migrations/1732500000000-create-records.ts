import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Consent records (Record API, imports, committed captures), their withdrawals, import jobs and
 * uncommitted captures. A record is frozen once written: the trigger refuses every UPDATE, so
 * post-decision transitions live in `withdrawals` (append-only) and status is derived.
 */
export class CreateRecords1732500000000 implements MigrationInterface {
  name = 'CreateRecords1732500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.records (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        flow_id text NOT NULL,
        flow_version integer NOT NULL,
        subject_external_id text,
        subject_email text,
        decisions jsonb NOT NULL,
        notice_digest text,
        collection_channel text NOT NULL,
        captured_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL,
        expires_at timestamptz,
        idempotency_key text,
        request_digest text NOT NULL,
        previous_record_id text,
        withdrawn_purposes text[] NOT NULL DEFAULT '{}',
        CONSTRAINT records_flow_fk FOREIGN KEY (flow_id) REFERENCES consent_records.flows (id),
        CONSTRAINT records_subject_check CHECK (subject_external_id IS NOT NULL OR subject_email IS NOT NULL),
        CONSTRAINT records_channel_check CHECK (collection_channel IN ('hosted', 'embedded', 'embedded_field', 'embedded_field_browser', 'form_capture', 'form_capture_browser', 'form_platform_webhook', 'controller_attested', 'imported'))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX records_idempotency_uq ON consent_records.records (application_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX records_external_id_idx ON consent_records.records (application_id, subject_external_id, flow_id, recorded_at DESC) WHERE subject_external_id IS NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX records_email_idx ON consent_records.records (application_id, lower(subject_email), flow_id, recorded_at DESC) WHERE subject_email IS NOT NULL`,
    );
    await runner.query(`
      CREATE FUNCTION consent_records.records_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'consent records are frozen once written';
      END $$`);
    await runner.query(
      `CREATE TRIGGER records_frozen BEFORE UPDATE ON consent_records.records FOR EACH ROW EXECUTE FUNCTION consent_records.records_frozen()`,
    );

    // The record currently speaking for (application, flow, person); written under an advisory lock.
    await runner.query(`
      CREATE TABLE consent_records.record_heads (
        application_id text NOT NULL,
        flow_id text NOT NULL,
        subject_key text NOT NULL,
        record_id text NOT NULL,
        CONSTRAINT record_heads_pk PRIMARY KEY (application_id, flow_id, subject_key),
        CONSTRAINT record_heads_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id)
      )`);

    await runner.query(`CREATE INDEX record_heads_record_idx ON consent_records.record_heads (record_id)`);
    await runner.query(`
      CREATE TABLE consent_records.withdrawals (
        id bigserial PRIMARY KEY,
        record_id text NOT NULL,
        purpose text,
        channel text NOT NULL,
        withdrawn_at timestamptz NOT NULL,
        CONSTRAINT withdrawals_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX withdrawals_purpose_uq ON consent_records.withdrawals (record_id, purpose) WHERE purpose IS NOT NULL`,
    );
    await runner.query(`CREATE UNIQUE INDEX withdrawals_whole_uq ON consent_records.withdrawals (record_id) WHERE purpose IS NULL`);

    await runner.query(`
      CREATE TABLE consent_records.imports (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        flow_id text NOT NULL,
        status text NOT NULL,
        total integer NOT NULL,
        processed integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        duplicates integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        completed_at timestamptz,
        lease_until timestamptz,
        CONSTRAINT imports_status_check CHECK (status IN ('queued', 'running', 'completed'))
      )`);
    await runner.query(`CREATE INDEX imports_pending_idx ON consent_records.imports (created_at) WHERE status <> 'completed'`);
    await runner.query(`
      CREATE TABLE consent_records.import_rows (
        import_id text NOT NULL,
        row_index integer NOT NULL,
        input jsonb NOT NULL,
        outcome text,
        record_id text,
        reason_code text,
        detail jsonb,
        CONSTRAINT import_rows_pk PRIMARY KEY (import_id, row_index),
        CONSTRAINT import_rows_import_fk FOREIGN KEY (import_id) REFERENCES consent_records.imports (id)
      )`);
    await runner.query(`CREATE INDEX import_rows_pending_idx ON consent_records.import_rows (import_id, row_index) WHERE outcome IS NULL`);

    await runner.query(`
      CREATE TABLE consent_records.captures (
        token_sha256 text PRIMARY KEY,
        application_id text NOT NULL,
        flow_id text NOT NULL,
        flow_version integer NOT NULL,
        origin text NOT NULL,
        channel text NOT NULL,
        decisions jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        committed_at timestamptz,
        record_id text
      )`);
    await runner.query(`CREATE INDEX captures_expiry_idx ON consent_records.captures (expires_at) WHERE committed_at IS NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.captures');
    await runner.query('DROP TABLE consent_records.import_rows');
    await runner.query('DROP TABLE consent_records.imports');
    await runner.query('DROP TABLE consent_records.withdrawals');
    await runner.query('DROP TABLE consent_records.record_heads');
    await runner.query('DROP TABLE consent_records.records');
    await runner.query('DROP FUNCTION consent_records.records_frozen()');
  }
}
