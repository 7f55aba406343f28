import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Applications, their credentials and allowed origins; the schema's outbox and inbox. */
export class CreateConnect1732300000000 implements MigrationInterface {
  name = 'CreateConnect1732300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.applications (
        id text PRIMARY KEY,
        name text NOT NULL,
        environment text NOT NULL,
        mode text NOT NULL DEFAULT 'conductor',
        capabilities_published boolean NOT NULL DEFAULT false,
        region text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT applications_environment_check CHECK (environment IN ('development', 'production')),
        CONSTRAINT applications_mode_check CHECK (mode IN ('conductor', 'oversight', 'hybrid'))
      )`);
    await runner.query(`
      CREATE TABLE gateway.api_tokens (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        token_sha256 text NOT NULL,
        name text NOT NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        CONSTRAINT api_tokens_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id),
        CONSTRAINT api_tokens_digest_unique UNIQUE (token_sha256)
      )`);
    await runner.query(`CREATE INDEX api_tokens_application_idx ON gateway.api_tokens (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE gateway.publishable_keys (
        key text PRIMARY KEY,
        application_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        CONSTRAINT publishable_keys_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id)
      )`);
    await runner.query(`CREATE INDEX publishable_keys_application_idx ON gateway.publishable_keys (application_id)`);
    await runner.query(`
      CREATE TABLE gateway.allowed_origins (
        application_id text NOT NULL,
        origin text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT allowed_origins_pk PRIMARY KEY (application_id, origin),
        CONSTRAINT allowed_origins_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id)
      )`);
    await createOutboxAndInbox(runner, 'gateway');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, 'gateway');
    await runner.query('DROP TABLE gateway.allowed_origins');
    await runner.query('DROP TABLE gateway.publishable_keys');
    await runner.query('DROP TABLE gateway.api_tokens');
    await runner.query('DROP TABLE gateway.applications');
  }
}
