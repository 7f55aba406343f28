import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The signature header sets a subscription's deliveries carry. Existing subscriptions keep the
 * spec's `X-Svc-*` headers only; `standard_webhooks` is an opt-in, and `svc` is always present.
 */
export class AddSubscriptionSignatureFormats1796800000000 implements MigrationInterface {
  name = 'AddSubscriptionSignatureFormats1796800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE webhooks.subscriptions
        ADD COLUMN signature_formats text[] NOT NULL DEFAULT '{svc}',
        ADD CONSTRAINT subscriptions_signature_formats_check
          CHECK ('svc' = ANY (signature_formats) AND signature_formats <@ ARRAY['svc', 'standard_webhooks']::text[])`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.subscriptions DROP COLUMN signature_formats`);
  }
}
