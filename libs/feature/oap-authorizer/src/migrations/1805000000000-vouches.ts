import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Vouches (Verify surface): a party's revocable, expiring statement of trust in an agent or a
 * person, with a weight and a reason code. The trust score of cascade step 9 is computed from them
 * (`vouches/trust-score.ts`) and kept on the agent's row by every vouch write and the expiry sweep.
 */
export class Vouches1805000000000 implements MigrationInterface {
  name = 'Vouches1805000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE oap.vouches (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        voucher_type text NOT NULL,
        voucher_id text NOT NULL,
        subject_type text NOT NULL,
        subject_id text NOT NULL,
        weight integer NOT NULL,
        reason_code text NOT NULL,
        expires_at timestamptz NOT NULL,
        idempotency_key text,
        request_sha256 text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        expiry_applied boolean NOT NULL DEFAULT false,
        CONSTRAINT vouches_voucher_type_check CHECK (voucher_type IN ('application', 'person', 'attester')),
        CONSTRAINT vouches_subject_type_check CHECK (subject_type IN ('agent', 'person')),
        CONSTRAINT vouches_weight_check CHECK (weight BETWEEN 1 AND 50)
      )`);
    await runner.query(`CREATE INDEX vouches_subject_idx ON oap.vouches (subject_id, expires_at) WHERE revoked_at IS NULL`);
    await runner.query(`CREATE INDEX vouches_voucher_day_idx ON oap.vouches (voucher_id, created_at)`);
    await runner.query(`CREATE INDEX vouches_application_idx ON oap.vouches (application_id, created_at, id)`);
    await runner.query(`CREATE INDEX vouches_expiry_idx ON oap.vouches (expires_at) WHERE revoked_at IS NULL AND NOT expiry_applied`);
    // At most one vouch of a voucher for a subject is active at a time (the per-subject limit).
    await runner.query(
      `CREATE UNIQUE INDEX vouches_one_active_idx ON oap.vouches (voucher_id, subject_id) WHERE revoked_at IS NULL AND NOT expiry_applied`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX vouches_idempotency_idx ON oap.vouches (application_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE oap.vouches`);
  }
}
