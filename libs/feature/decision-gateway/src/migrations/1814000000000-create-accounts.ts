import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Organisation accounts (Connect): an account owns applications; its members are people with a
 * role (owner, admin, developer, auditor); account tokens act for the account with a role of
 * their own, stored as SHA-256 digests only. Applications created by the admin CLI keep no account.
 */
export class CreateAccounts1814000000000 implements MigrationInterface {
  name = 'CreateAccounts1814000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.accounts (
        id text PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE gateway.account_members (
        account_id text NOT NULL,
        person_id text NOT NULL,
        role text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT account_members_pk PRIMARY KEY (account_id, person_id),
        CONSTRAINT account_members_account_fk FOREIGN KEY (account_id) REFERENCES gateway.accounts (id),
        CONSTRAINT account_members_person_fk FOREIGN KEY (person_id) REFERENCES gateway.people (id),
        CONSTRAINT account_members_role_check CHECK (role IN ('owner', 'admin', 'developer', 'auditor'))
      )`);
    await runner.query(`CREATE INDEX account_members_person_idx ON gateway.account_members (person_id)`);
    // One owner per account.
    await runner.query(`CREATE UNIQUE INDEX account_members_one_owner_idx ON gateway.account_members (account_id) WHERE role = 'owner'`);
    await runner.query(`
      CREATE TABLE gateway.account_tokens (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        token_sha256 text NOT NULL,
        name text NOT NULL,
        role text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        CONSTRAINT account_tokens_account_fk FOREIGN KEY (account_id) REFERENCES gateway.accounts (id),
        CONSTRAINT account_tokens_sha256_key UNIQUE (token_sha256),
        CONSTRAINT account_tokens_role_check CHECK (role IN ('admin', 'developer', 'auditor'))
      )`);
    await runner.query(`CREATE INDEX account_tokens_account_idx ON gateway.account_tokens (account_id, created_at, id)`);
    await runner.query(`ALTER TABLE gateway.applications ADD COLUMN account_id text`);
    await runner.query(
      `ALTER TABLE gateway.applications ADD CONSTRAINT applications_account_fk FOREIGN KEY (account_id) REFERENCES gateway.accounts (id)`,
    );
    await runner.query(`CREATE INDEX applications_account_idx ON gateway.applications (account_id, created_at, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX gateway.applications_account_idx');
    await runner.query('ALTER TABLE gateway.applications DROP CONSTRAINT applications_account_fk');
    await runner.query('ALTER TABLE gateway.applications DROP COLUMN account_id');
    await runner.query('DROP TABLE gateway.account_tokens');
    await runner.query('DROP TABLE gateway.account_members');
    await runner.query('DROP TABLE gateway.accounts');
  }
}
