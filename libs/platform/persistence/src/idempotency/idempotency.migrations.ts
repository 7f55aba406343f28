import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { SchemaMigrations } from '../migrations';

/** Postgres schema of the platform's Idempotency-Key store (one per region database, like `keys`). */
export const IDEMPOTENCY_SCHEMA = 'idempotency';

/**
 * `idempotency.requests`: one row per (caller, key). `caller` is the authenticated caller's scope
 * (an application, a person at an application, an attester), never global; `fingerprint` is the
 * SHA-256 of the canonical request (method, path, canonical JSON body); `claim_id` names the
 * request holding an in-flight claim, so a late completion of a request whose expired lock was
 * taken over cannot overwrite its successor's answer. `response_enc` is the stored answer
 * (status in clear, headers and body AES-256-GCM under the region's key-encryption key: an answer
 * may hold a freshly minted secret). `expires_at` drives the sweeper.
 */
export class CreateIdempotencyRequests1800000000000 implements MigrationInterface {
  name = 'CreateIdempotencyRequests1800000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE "${IDEMPOTENCY_SCHEMA}".requests (
        caller text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        state text NOT NULL,
        claim_id uuid NOT NULL,
        locked_until timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        response_status integer,
        response_enc bytea,
        CONSTRAINT idempotency_requests_pk PRIMARY KEY (caller, key),
        CONSTRAINT idempotency_requests_state_check CHECK (state IN ('in_flight', 'done')),
        CONSTRAINT idempotency_requests_response_check CHECK ((state = 'done') = (response_status IS NOT NULL AND response_enc IS NOT NULL)),
        CONSTRAINT idempotency_requests_key_check CHECK (length(key) BETWEEN 1 AND 255)
      )`);
    await runner.query(`CREATE INDEX idempotency_requests_expiry_idx ON "${IDEMPOTENCY_SCHEMA}".requests (expires_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE IF EXISTS "${IDEMPOTENCY_SCHEMA}".requests`);
  }
}

/**
 * The recovery point: `applied_at` is set inside the request's first business transaction that
 * commits (so it exists exactly when the effect did), and `answer_lost` is the final state of an
 * applied claim whose answer was never stored (its process died between the commit and the
 * answer): every retry gets 409 `idempotency_key_answer_lost` instead of running again.
 */
export class RecordAppliedIdempotencyClaims1830000000000 implements MigrationInterface {
  name = 'RecordAppliedIdempotencyClaims1830000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "${IDEMPOTENCY_SCHEMA}".requests ADD COLUMN applied_at timestamptz`);
    await runner.query(`
      ALTER TABLE "${IDEMPOTENCY_SCHEMA}".requests
        DROP CONSTRAINT idempotency_requests_state_check,
        ADD CONSTRAINT idempotency_requests_state_check CHECK (state IN ('in_flight', 'done', 'answer_lost'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM "${IDEMPOTENCY_SCHEMA}".requests WHERE state = 'answer_lost'`);
    await runner.query(`
      ALTER TABLE "${IDEMPOTENCY_SCHEMA}".requests
        DROP CONSTRAINT idempotency_requests_state_check,
        ADD CONSTRAINT idempotency_requests_state_check CHECK (state IN ('in_flight', 'done'))`);
    await runner.query(`ALTER TABLE "${IDEMPOTENCY_SCHEMA}".requests DROP COLUMN applied_at`);
  }
}

/** The `idempotency` schema's ordered migrations; every process with a database applies them at boot. */
export const idempotencyMigrations: SchemaMigrations = {
  schema: IDEMPOTENCY_SCHEMA,
  migrations: [CreateIdempotencyRequests1800000000000, RecordAppliedIdempotencyClaims1830000000000],
};
