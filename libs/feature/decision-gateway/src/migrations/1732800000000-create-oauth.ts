import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The OpenID provider's storage: `oauth_models` holds every model the provider persists (sessions,
 * interactions, pushed requests, codes, device codes, grants, access and refresh tokens) as its
 * payload, with the columns the adapter looks rows up by and the expiry it filters on;
 * `oauth_revoked_grants` remembers revoked grants until they expire, so a token written by a request
 * racing the revocation is still refused; `oauth_clients` are the OAuth clients registered under an
 * application (the secret encrypted under the key-encryption key, bound to the client id).
 */
export class CreateOAuth1732800000000 implements MigrationInterface {
  name = 'CreateOAuth1732800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.oauth_models (
        model text NOT NULL,
        id text NOT NULL,
        payload jsonb NOT NULL,
        grant_id text,
        user_code text,
        uid text,
        expires_at timestamptz,
        consumed_at timestamptz,
        CONSTRAINT oauth_models_pk PRIMARY KEY (model, id)
      )`);
    await runner.query(`CREATE INDEX oauth_models_grant_idx ON gateway.oauth_models (grant_id) WHERE grant_id IS NOT NULL`);
    await runner.query(
      `CREATE UNIQUE INDEX oauth_models_user_code_idx ON gateway.oauth_models (model, user_code) WHERE user_code IS NOT NULL`,
    );
    await runner.query(`CREATE UNIQUE INDEX oauth_models_uid_idx ON gateway.oauth_models (model, uid) WHERE uid IS NOT NULL`);
    await runner.query(`CREATE INDEX oauth_models_expiry_idx ON gateway.oauth_models (expires_at) WHERE expires_at IS NOT NULL`);
    await runner.query(`
      CREATE TABLE gateway.oauth_revoked_grants (
        grant_id text PRIMARY KEY,
        revoked_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE gateway.oauth_clients (
        client_id text PRIMARY KEY,
        application_id text NOT NULL,
        name text NOT NULL,
        metadata jsonb NOT NULL,
        secret_enc bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oauth_clients_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id)
      )`);
    await runner.query(`CREATE INDEX oauth_clients_application_idx ON gateway.oauth_clients (application_id, created_at, client_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE IF EXISTS gateway.oauth_clients`);
    await runner.query(`DROP TABLE IF EXISTS gateway.oauth_revoked_grants`);
    await runner.query(`DROP TABLE IF EXISTS gateway.oauth_models`);
  }
}
