import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tables of the receipt intake (receipts frozen from other services' events):
 * `receipts.principal_pseudonym_keys`, one secret per application (encrypted under the KEK) from
 * which receipts derive `pii_principal_id`, so no raw subject reference enters a receipt; and
 * `receipts.approval_escalations`, which authority an escalation belongs to, learnt from
 * `oap.approval_requested` because `oap.escalation_resolved` names only the escalation.
 */
export class CreateReceiptIntake1795600000000 implements MigrationInterface {
  name = 'CreateReceiptIntake1795600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE receipts.principal_pseudonym_keys (
        application_id text NOT NULL,
        secret_encrypted bytea NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT principal_pseudonym_keys_pk PRIMARY KEY (application_id)
      )`);
    await runner.query(`
      CREATE TABLE receipts.approval_escalations (
        escalation_id text NOT NULL,
        application_id text NOT NULL,
        authority_id text NOT NULL,
        requested_at timestamptz NOT NULL,
        CONSTRAINT approval_escalations_pk PRIMARY KEY (escalation_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE receipts.approval_escalations');
    await runner.query('DROP TABLE receipts.principal_pseudonym_keys');
  }
}
