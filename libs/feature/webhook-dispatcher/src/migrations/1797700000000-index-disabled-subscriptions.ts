import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets /metrics count disabled subscriptions from a small partial index instead of scanning them all. */
export class IndexDisabledSubscriptions1797700000000 implements MigrationInterface {
  name = 'IndexDisabledSubscriptions1797700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE INDEX subscriptions_disabled_idx ON webhooks.subscriptions (disabled_at) WHERE status = 'disabled'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX webhooks.subscriptions_disabled_idx`);
  }
}
