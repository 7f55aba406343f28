import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Flows and their versions; the schema's outbox and inbox. A version's terms are written once
 * when it is activated and never updated afterwards (immutability is enforced in the use cases
 * and by the trigger below, so a bug cannot rewrite the wording consents were collected under).
 */
export class CreateFlows1732400000000 implements MigrationInterface {
  name = 'CreateFlows1732400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.flows (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        active_version integer,
        latest_version integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT flows_active_le_latest CHECK (active_version IS NULL OR active_version <= latest_version)
      )`);
    await runner.query(`CREATE INDEX flows_application_idx ON consent_records.flows (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE consent_records.flow_versions (
        flow_id text NOT NULL,
        version integer NOT NULL,
        status text NOT NULL,
        terms jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        activated_at timestamptz,
        CONSTRAINT flow_versions_pk PRIMARY KEY (flow_id, version),
        CONSTRAINT flow_versions_flow_fk FOREIGN KEY (flow_id) REFERENCES consent_records.flows (id),
        CONSTRAINT flow_versions_status_check CHECK (status IN ('draft', 'active', 'superseded'))
      )`);
    await runner.query(`
      CREATE FUNCTION consent_records.flow_versions_freeze_terms() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status <> 'draft' AND NEW.terms IS DISTINCT FROM OLD.terms THEN
          RAISE EXCEPTION 'terms of an activated flow version are immutable';
        END IF;
        RETURN NEW;
      END $$`);
    await runner.query(`
      CREATE TRIGGER flow_versions_freeze_terms BEFORE UPDATE ON consent_records.flow_versions
      FOR EACH ROW EXECUTE FUNCTION consent_records.flow_versions_freeze_terms()`);
    await createOutboxAndInbox(runner, 'consent_records');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, 'consent_records');
    await runner.query('DROP TABLE consent_records.flow_versions');
    await runner.query('DROP FUNCTION consent_records.flow_versions_freeze_terms()');
    await runner.query('DROP TABLE consent_records.flows');
  }
}
