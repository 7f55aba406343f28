import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data policies (Protect): retention rules per purpose and data category, attached to flows, in
 * versions that are immutable once active (the trigger refuses any change to an activated
 * version's rules or flows, as for flow terms). `record_expiries` is where the retention sweep
 * writes that a record's term ended: records are frozen, so the expiry is appended beside them,
 * once per record (primary key), and the status derived.
 */
export class CreateDataPolicies1806000000000 implements MigrationInterface {
  name = 'CreateDataPolicies1806000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.policies (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        active_version integer,
        latest_version integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT policies_active_le_latest CHECK (active_version IS NULL OR active_version <= latest_version)
      )`);
    await runner.query(`CREATE INDEX policies_application_idx ON consent_records.policies (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE consent_records.policy_versions (
        policy_id text NOT NULL,
        version integer NOT NULL,
        status text NOT NULL,
        name text NOT NULL,
        description text,
        rules jsonb NOT NULL,
        flow_ids text[] NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        activated_at timestamptz,
        CONSTRAINT policy_versions_pk PRIMARY KEY (policy_id, version),
        CONSTRAINT policy_versions_policy_fk FOREIGN KEY (policy_id) REFERENCES consent_records.policies (id),
        CONSTRAINT policy_versions_status_check CHECK (status IN ('draft', 'active', 'superseded'))
      )`);
    await runner.query(
      `CREATE INDEX policy_versions_flows_idx ON consent_records.policy_versions USING gin (flow_ids) WHERE status = 'active'`,
    );
    await runner.query(`
      CREATE FUNCTION consent_records.policy_versions_freeze() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status <> 'draft' AND (NEW.rules IS DISTINCT FROM OLD.rules OR NEW.flow_ids IS DISTINCT FROM OLD.flow_ids
            OR NEW.name IS DISTINCT FROM OLD.name OR NEW.description IS DISTINCT FROM OLD.description) THEN
          RAISE EXCEPTION 'an activated policy version is immutable';
        END IF;
        RETURN NEW;
      END $$`);
    await runner.query(`
      CREATE TRIGGER policy_versions_freeze BEFORE UPDATE ON consent_records.policy_versions
      FOR EACH ROW EXECUTE FUNCTION consent_records.policy_versions_freeze()`);

    await runner.query(`
      CREATE TABLE consent_records.record_expiries (
        record_id text PRIMARY KEY,
        expired_at timestamptz NOT NULL,
        swept_at timestamptz NOT NULL,
        reason text NOT NULL,
        policy_id text,
        policy_version integer,
        purposes text[] NOT NULL,
        CONSTRAINT record_expiries_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id),
        CONSTRAINT record_expiries_reason_check CHECK (reason IN ('consent_duration', 'retention_policy', 'deal_term'))
      )`);
    // The sweep looks for records whose term has ended: a partial index on the end of term.
    await runner.query(`CREATE INDEX records_expires_at_idx ON consent_records.records (expires_at) WHERE expires_at IS NOT NULL`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX consent_records.records_expires_at_idx');
    await runner.query('DROP TABLE consent_records.record_expiries');
    await runner.query('DROP TABLE consent_records.policy_versions');
    await runner.query('DROP FUNCTION consent_records.policy_versions_freeze()');
    await runner.query('DROP TABLE consent_records.policies');
  }
}
