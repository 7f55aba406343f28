import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted decision pages: the application activity log (`cors.preflight_denied`, shown on the
 * application's Activity tab) and the projection of activated flows that lets the public
 * `/accord/:flow_id` page find the flow's application without reading consent-records' schema.
 */
export class CreateHostedPages1732500000000 implements MigrationInterface {
  name = 'CreateHostedPages1732500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.activity_events (
        id text PRIMARY KEY,
        -- Insertion order: many events share a timestamp (and a test clock stands still).
        seq bigint GENERATED ALWAYS AS IDENTITY,
        application_id text NOT NULL,
        type text NOT NULL,
        origin text,
        method text,
        path text,
        occurred_at timestamptz NOT NULL,
        CONSTRAINT activity_events_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id) ON DELETE CASCADE
      )`);
    await runner.query(`CREATE INDEX activity_events_application_idx ON gateway.activity_events (application_id, seq DESC)`);
    await runner.query(`
      CREATE TABLE gateway.hosted_flows (
        flow_id text PRIMARY KEY,
        application_id text NOT NULL,
        active_version integer NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE IF EXISTS gateway.hosted_flows`);
    await runner.query(`DROP TABLE IF EXISTS gateway.activity_events`);
  }
}
