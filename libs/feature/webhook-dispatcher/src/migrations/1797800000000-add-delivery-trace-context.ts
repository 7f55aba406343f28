import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stores with each delivery the W3C trace context of the event it delivers, so its attempts (made
 * later, by whichever worker claims it) join the event's trace.
 */
export class AddDeliveryTraceContext1797800000000 implements MigrationInterface {
  name = 'AddDeliveryTraceContext1797800000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.deliveries ADD COLUMN trace_parent text, ADD COLUMN trace_state text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE webhooks.deliveries DROP COLUMN trace_parent, DROP COLUMN trace_state`);
  }
}
