import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Approval decisions' receipts are frozen from decision-gateway's outcome events: a new source. */
export class ApprovalReceipts1808100000000 implements MigrationInterface {
  name = 'ApprovalReceipts1808100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE receipts.frozen_receipts DROP CONSTRAINT frozen_receipts_source_check`);
    await runner.query(
      `ALTER TABLE receipts.frozen_receipts ADD CONSTRAINT frozen_receipts_source_check CHECK (source IN ('consent-records', 'oap-authorizer', 'disclosure', 'decision-gateway'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE receipts.frozen_receipts DROP CONSTRAINT frozen_receipts_source_check`);
    await runner.query(
      `ALTER TABLE receipts.frozen_receipts ADD CONSTRAINT frozen_receipts_source_check CHECK (source IN ('consent-records', 'oap-authorizer', 'disclosure'))`,
    );
  }
}
