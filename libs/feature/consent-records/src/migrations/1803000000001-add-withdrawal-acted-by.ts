import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Who withdrew for the person: a delegate (`usr_…`) acting for the record's principal (`usr_…`)
 * under a delegation grant (`dlg_…`). All three set or none (a withdrawal by the organisation or
 * by the person themself names no delegate).
 */
export class AddWithdrawalActedBy1803000000001 implements MigrationInterface {
  name = 'AddWithdrawalActedBy1803000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE consent_records.withdrawals
        ADD COLUMN acted_by_delegate_id text,
        ADD COLUMN acted_for_principal_id text,
        ADD COLUMN acted_under_grant_id text,
        ADD COLUMN acted_under_grant_type text,
        ADD CONSTRAINT withdrawals_acted_by_check CHECK (
          (acted_by_delegate_id IS NULL) = (acted_for_principal_id IS NULL)
          AND (acted_by_delegate_id IS NULL) = (acted_under_grant_id IS NULL)
          AND (acted_by_delegate_id IS NULL) = (acted_under_grant_type IS NULL))`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE consent_records.withdrawals DROP CONSTRAINT withdrawals_acted_by_check,
        DROP COLUMN acted_by_delegate_id, DROP COLUMN acted_for_principal_id, DROP COLUMN acted_under_grant_id, DROP COLUMN acted_under_grant_type`);
  }
}
