import { createOutboxAndInbox, dropOutboxAndInbox, type SchemaMigrations } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Postgres schema owning the regional signing keys. */
export const KEYS_SCHEMA = 'keys';

/**
 * `keys.signing_keys`: one row per Ed25519 signing key of a region. Rows are never deleted —
 * a retired key must keep verifying receipts it signed. The constraints restate the store's
 * invariants so a bug or a manual edit cannot break them: `kid` is exactly `oap-<region>-v<version>`,
 * versions are unique per region, and the partial unique index admits one active key per region.
 */
export class CreateSigningKeys1795377354475 implements MigrationInterface {
  name = 'CreateSigningKeys1795377354475';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE "${KEYS_SCHEMA}".signing_keys (
        kid text NOT NULL,
        region text NOT NULL,
        version integer NOT NULL,
        algorithm text NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_enc bytea NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        CONSTRAINT keys_signing_keys_pk PRIMARY KEY (kid),
        CONSTRAINT keys_signing_keys_region_version_unique UNIQUE (region, version),
        CONSTRAINT keys_signing_keys_kid_format_check CHECK (kid = 'oap-' || region || '-v' || version::text),
        CONSTRAINT keys_signing_keys_version_check CHECK (version >= 1),
        CONSTRAINT keys_signing_keys_algorithm_check CHECK (algorithm = 'EdDSA'),
        CONSTRAINT keys_signing_keys_status_check CHECK (status IN ('active', 'retired')),
        CONSTRAINT keys_signing_keys_retired_at_check CHECK ((status = 'retired') = (retired_at IS NOT NULL))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX keys_signing_keys_one_active_per_region_idx ON "${KEYS_SCHEMA}".signing_keys (region) WHERE status = 'active'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS "${KEYS_SCHEMA}".keys_signing_keys_one_active_per_region_idx`);
    await runner.query(`DROP TABLE IF EXISTS "${KEYS_SCHEMA}".signing_keys`);
  }
}

/** The keys schema's outbox carries `keys.signing_key_rotated`, written in the rotation's transaction. */
export class AddKeysOutbox1795377354476 implements MigrationInterface {
  name = 'AddKeysOutbox1795377354476';

  async up(runner: QueryRunner): Promise<void> {
    await createOutboxAndInbox(runner, KEYS_SCHEMA);
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, KEYS_SCHEMA);
  }
}

/**
 * `keys.jose_keys`: the region's RSA (RS256) and P-256 (ES256) keys, for ID tokens of OpenID
 * clients. Same rules as `signing_keys`: never deleted, private halves encrypted under the kid,
 * one active key per region and algorithm, kid `oap-<region>-<rs256|es256>-v<version>`.
 */
export class CreateJoseKeys1795377354477 implements MigrationInterface {
  name = 'CreateJoseKeys1795377354477';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE "${KEYS_SCHEMA}".jose_keys (
        kid text NOT NULL,
        region text NOT NULL,
        algorithm text NOT NULL,
        version integer NOT NULL,
        public_jwk jsonb NOT NULL,
        private_key_enc bytea NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        retired_at timestamptz,
        CONSTRAINT keys_jose_keys_pk PRIMARY KEY (kid),
        CONSTRAINT keys_jose_keys_region_algorithm_version_unique UNIQUE (region, algorithm, version),
        CONSTRAINT keys_jose_keys_kid_format_check CHECK (kid = 'oap-' || region || '-' || lower(algorithm) || '-v' || version::text),
        CONSTRAINT keys_jose_keys_version_check CHECK (version >= 1),
        CONSTRAINT keys_jose_keys_algorithm_check CHECK (algorithm IN ('RS256', 'ES256')),
        CONSTRAINT keys_jose_keys_status_check CHECK (status IN ('active', 'retired')),
        CONSTRAINT keys_jose_keys_retired_at_check CHECK ((status = 'retired') = (retired_at IS NOT NULL))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX keys_jose_keys_one_active_idx ON "${KEYS_SCHEMA}".jose_keys (region, algorithm) WHERE status = 'active'`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE IF EXISTS "${KEYS_SCHEMA}".jose_keys`);
  }
}

/** The `keys` schema's ordered migrations, for `runMigrations(dataSource, keysMigrations)`. */
export const keysMigrations: SchemaMigrations = {
  schema: KEYS_SCHEMA,
  migrations: [CreateSigningKeys1795377354475, AddKeysOutbox1795377354476, CreateJoseKeys1795377354477],
};
