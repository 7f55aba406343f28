import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosted form platform integrations (signed webhook intake) and their intakes: one row per
 * platform response token, so a redelivery finds the record it made, and a refused delivery stays
 * visible to the organisation with its reason.
 */
export class CreateFormIntegrations1732760000000 implements MigrationInterface {
  name = 'CreateFormIntegrations1732760000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.form_integrations (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        platform text NOT NULL,
        flow_id text NOT NULL,
        form_id text,
        purposes jsonb NOT NULL,
        subject jsonb NOT NULL,
        secret_enc bytea NOT NULL,
        created_at timestamptz NOT NULL,
        deleted_at timestamptz,
        CONSTRAINT form_integrations_flow_fk FOREIGN KEY (flow_id) REFERENCES consent_records.flows (id),
        CONSTRAINT form_integrations_platform_check CHECK (platform IN ('typeform'))
      )`);
    await runner.query(
      `CREATE INDEX form_integrations_application_idx ON consent_records.form_integrations (application_id, created_at DESC, id DESC) WHERE deleted_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE consent_records.form_intakes (
        integration_id text NOT NULL,
        response_token text NOT NULL,
        outcome text NOT NULL,
        record_id text,
        reason_code text,
        detail jsonb,
        received_at timestamptz NOT NULL,
        CONSTRAINT form_intakes_pk PRIMARY KEY (integration_id, response_token),
        CONSTRAINT form_intakes_integration_fk FOREIGN KEY (integration_id) REFERENCES consent_records.form_integrations (id),
        CONSTRAINT form_intakes_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id),
        CONSTRAINT form_intakes_outcome_check CHECK ((outcome = 'recorded' AND record_id IS NOT NULL) OR (outcome = 'refused' AND reason_code IS NOT NULL))
      )`);
    await runner.query(
      `CREATE INDEX form_intakes_received_idx ON consent_records.form_intakes (integration_id, received_at DESC, response_token DESC)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.form_intakes');
    await runner.query('DROP TABLE consent_records.form_integrations');
  }
}
