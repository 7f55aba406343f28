import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the approvers of an escalation are shown (contracts ApprovalProposal), kept with the
 * escalation so decision-gateway can open the approval session on demand, by the session token's
 * digest, when the page is requested before the oap.approval_requested event arrives. Escalations
 * stored before this migration have none (the page then falls back to the request summary).
 */
export class EscalationProposal1797000000000 implements MigrationInterface {
  name = 'EscalationProposal1797000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.escalations ADD COLUMN proposal_json text`);
    await runner.query(`CREATE INDEX IF NOT EXISTS escalations_session_token_idx ON oap.escalations (session_token_sha256)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX IF EXISTS oap.escalations_session_token_idx`);
    await runner.query(`ALTER TABLE oap.escalations DROP COLUMN proposal_json`);
  }
}
