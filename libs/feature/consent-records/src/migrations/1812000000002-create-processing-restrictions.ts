import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Restrictions of processing (GDPR Art. 18, a data subject request): a purpose of a person's
 * consent record that may be stored but not otherwise processed until the restriction is lifted.
 * Erasure deletes them with the record.
 */
export class CreateProcessingRestrictions1812000000002 implements MigrationInterface {
  name = 'CreateProcessingRestrictions1812000000002';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.processing_restrictions (
        record_id text NOT NULL,
        purpose text NOT NULL,
        application_id text NOT NULL,
        data_request_id text NOT NULL,
        restricted_at timestamptz NOT NULL,
        CONSTRAINT processing_restrictions_pk PRIMARY KEY (record_id, purpose),
        CONSTRAINT processing_restrictions_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.processing_restrictions');
  }
}
