import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Data licences and the offers made under them (Protect). A licence is written once and never
 * changed (a party publishes a new licence for new terms). An offer keeps its current state and
 * terms; every move is appended to `data_offer_moves`, the deal's history. An accepted offer
 * names the consent record its acceptance wrote.
 */
export class CreateDataDeals1806000000001 implements MigrationInterface {
  name = 'CreateDataDeals1806000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.data_licenses (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        name text NOT NULL,
        flow_id text NOT NULL,
        terms jsonb NOT NULL,
        offer_window text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT data_licenses_flow_fk FOREIGN KEY (flow_id) REFERENCES consent_records.flows (id)
      )`);
    await runner.query(`CREATE INDEX data_licenses_application_idx ON consent_records.data_licenses (application_id, created_at, id)`);
    await runner.query(`
      CREATE FUNCTION consent_records.data_licenses_frozen() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'data licences are immutable';
      END $$`);
    await runner.query(
      `CREATE TRIGGER data_licenses_frozen BEFORE UPDATE ON consent_records.data_licenses FOR EACH ROW EXECUTE FUNCTION consent_records.data_licenses_frozen()`,
    );
    await runner.query(`
      CREATE TABLE consent_records.data_offers (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        license_id text NOT NULL,
        subject_external_id text,
        subject_email text,
        state text NOT NULL,
        terms jsonb NOT NULL,
        expires_at timestamptz,
        record_id text,
        accepted_at timestamptz,
        moves integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT data_offers_license_fk FOREIGN KEY (license_id) REFERENCES consent_records.data_licenses (id),
        CONSTRAINT data_offers_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id),
        CONSTRAINT data_offers_subject_check CHECK (subject_external_id IS NOT NULL OR subject_email IS NOT NULL),
        CONSTRAINT data_offers_state_check CHECK (state IN ('draft', 'offered', 'countered', 'user_revised', 'accepted', 'declined', 'expired')),
        CONSTRAINT data_offers_accepted_check CHECK ((state = 'accepted') = (record_id IS NOT NULL))
      )`);
    await runner.query(`CREATE INDEX data_offers_application_idx ON consent_records.data_offers (application_id, created_at, id)`);
    // The retention sweep ends a deal's consent at the end of the deal's term: looked up by record.
    await runner.query(`CREATE UNIQUE INDEX data_offers_record_uq ON consent_records.data_offers (record_id) WHERE record_id IS NOT NULL`);
    await runner.query(`
      CREATE TABLE consent_records.data_offer_moves (
        offer_id text NOT NULL,
        seq integer NOT NULL,
        move text NOT NULL,
        actor text NOT NULL,
        from_state text NOT NULL,
        to_state text NOT NULL,
        terms jsonb NOT NULL,
        note text,
        at timestamptz NOT NULL,
        CONSTRAINT data_offer_moves_pk PRIMARY KEY (offer_id, seq),
        CONSTRAINT data_offer_moves_offer_fk FOREIGN KEY (offer_id) REFERENCES consent_records.data_offers (id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.data_offer_moves');
    await runner.query('DROP TABLE consent_records.data_offers');
    await runner.query('DROP TABLE consent_records.data_licenses');
    await runner.query('DROP FUNCTION consent_records.data_licenses_frozen()');
  }
}
