import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delegation offers no longer keep their own Idempotency-Key column: the platform's store
 * (`idempotency.requests`) answers every retry of a changing request, offers included.
 */
export class DropDelegationIdempotencyKey1800000000001 implements MigrationInterface {
  name = 'DropDelegationIdempotencyKey1800000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS gateway.delegation_grants_idempotency`);
    await runner.query(`ALTER TABLE gateway.delegation_grants DROP COLUMN IF EXISTS idempotency_key`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.delegation_grants ADD COLUMN idempotency_key text`);
    await runner.query(
      `CREATE UNIQUE INDEX delegation_grants_idempotency ON gateway.delegation_grants (principal_person_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
  }
}
