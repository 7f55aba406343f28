import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Revocations get a closed `reason_code`, the only reason the anonymous revocation list
 * publishes. Revocations recorded before it carry `unspecified`: their free text is not mapped.
 */
export class RevocationReasonCode1797300000000 implements MigrationInterface {
  name = 'RevocationReasonCode1797300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE oap.revocations
        ADD COLUMN reason_code text NOT NULL DEFAULT 'unspecified',
        ADD CONSTRAINT revocations_reason_code_check
          CHECK (reason_code IN ('unspecified', 'key_compromise', 'superseded', 'cessation_of_operation', 'privilege_withdrawn'))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.revocations DROP COLUMN reason_code`);
  }
}
