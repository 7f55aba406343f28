import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data subject requests (Protect): the request with its legal clock, its history, and the access
 * or portability export (sealed under the key-encryption key, deleted at expiry or erasure).
 */
export class CreateDataRequests1812000000000 implements MigrationInterface {
  name = 'CreateDataRequests1812000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.data_requests (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        person_id text NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        raised_by text NOT NULL,
        purposes text[] NOT NULL DEFAULT '{}',
        rectification jsonb,
        received_at timestamptz NOT NULL,
        due_at timestamptz NOT NULL,
        extended_at timestamptz,
        extension_reason text,
        started_at timestamptz,
        completed_at timestamptz,
        rejected_at timestamptz,
        rejection_reason text,
        result jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz NOT NULL,
        CONSTRAINT data_requests_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id),
        CONSTRAINT data_requests_kind_check CHECK (kind IN ('access', 'portability', 'rectification', 'erasure', 'objection', 'restriction')),
        CONSTRAINT data_requests_status_check CHECK (status IN ('received', 'in_progress', 'completed', 'rejected')),
        CONSTRAINT data_requests_raised_by_check CHECK (raised_by IN ('person', 'application'))
      )`);
    await runner.query(`CREATE INDEX data_requests_application_idx ON gateway.data_requests (application_id, received_at, id)`);
    await runner.query(`CREATE INDEX data_requests_person_idx ON gateway.data_requests (person_id, received_at, id)`);
    await runner.query(`
      CREATE TABLE gateway.data_request_exports (
        data_request_id text PRIMARY KEY,
        person_id text NOT NULL,
        token_sha256 text NOT NULL,
        token_sealed bytea NOT NULL,
        manifest jsonb NOT NULL,
        body_sealed bytea NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT data_request_exports_request_fk FOREIGN KEY (data_request_id) REFERENCES gateway.data_requests (id)
      )`);
    await runner.query(`CREATE INDEX data_request_exports_person_idx ON gateway.data_request_exports (person_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE gateway.data_request_exports');
    await runner.query('DROP TABLE gateway.data_requests');
  }
}
