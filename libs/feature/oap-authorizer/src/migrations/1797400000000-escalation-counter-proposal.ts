import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The counter proposal of a countered escalation, kept so the agent reads it at
 * `GET /api/v1/oap/escalations/:id` (not only from the webhook).
 */
export class EscalationCounterProposal1797400000000 implements MigrationInterface {
  name = 'EscalationCounterProposal1797400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.escalations ADD COLUMN counter_proposal jsonb`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.escalations DROP COLUMN counter_proposal`);
  }
}
