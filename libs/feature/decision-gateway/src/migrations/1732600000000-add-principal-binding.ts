import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * How a session's person was bound (`principal_binding`), and the single-use principal assertions
 * an application obtains server-side for its page. Sessions stored before this migration that
 * name a person were minted with an API token or named on the page; which of the two is not
 * known, so they stay NULL (unbound): no consent record is written for them from now on.
 */
export class AddPrincipalBinding1732600000000 implements MigrationInterface {
  name = 'AddPrincipalBinding1732600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.decision_sessions ADD COLUMN principal_binding text`);
    await runner.query(`
      ALTER TABLE gateway.decision_sessions ADD CONSTRAINT decision_sessions_principal_binding_check
        CHECK (principal_binding IS NULL OR (principal_binding IN ('api_token', 'principal_assertion', 'authority', 'hosted_sign_in') AND principal_id IS NOT NULL))`);
    await runner.query(`
      CREATE TABLE gateway.principal_assertions (
        assertion_sha256 text PRIMARY KEY,
        application_id text NOT NULL,
        principal_id text NOT NULL,
        flow_id text,
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        CONSTRAINT principal_assertions_sha256_check CHECK (assertion_sha256 ~ '^[0-9a-f]{64}$')
      )`);
    await runner.query(`CREATE INDEX principal_assertions_expiry_idx ON gateway.principal_assertions (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.principal_assertions`);
    await runner.query(`ALTER TABLE gateway.decision_sessions DROP COLUMN principal_binding`);
  }
}
