import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets the expiry sweep find pending escalations by approval TTL without scanning resolved ones. */
export class IndexPendingEscalations1796200000000 implements MigrationInterface {
  name = 'IndexPendingEscalations1796200000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX escalations_pending_ttl_idx ON oap.escalations (approval_ttl_at) WHERE status = 'pending'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX oap.escalations_pending_ttl_idx`);
  }
}
