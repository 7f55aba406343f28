import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agreements no longer keep their own Idempotency-Key column: the platform's store
 * (`idempotency.requests`) answers every retry of a changing request, agreement creation included.
 */
export class DropAgreementIdempotencyKey1810000000000 implements MigrationInterface {
  name = 'DropAgreementIdempotencyKey1810000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS gateway.agreements_idempotency_idx`);
    await runner.query(`ALTER TABLE gateway.agreements DROP COLUMN IF EXISTS idempotency_key`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.agreements ADD COLUMN idempotency_key text`);
    await runner.query(
      `CREATE UNIQUE INDEX agreements_idempotency_idx ON gateway.agreements (application_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }
}
