import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Records the environment of the application a subscription belongs to, which decides the target
 * addresses its deliveries may reach. Existing plain-http subscriptions can only belong to
 * development applications (production ones were always https-only); the rest are held to the
 * production policy.
 */
export class AddSubscriptionEnvironment1796100000000 implements MigrationInterface {
  name = 'AddSubscriptionEnvironment1796100000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhooks.subscriptions
        ADD COLUMN environment text NOT NULL DEFAULT 'production',
        ADD CONSTRAINT subscriptions_environment_check CHECK (environment IN ('development', 'production'))`);
    await runner.query(`UPDATE webhooks.subscriptions SET environment = 'development' WHERE url LIKE 'http://%'`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.subscriptions DROP COLUMN environment`);
  }
}
