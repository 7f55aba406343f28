import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Secure transfers (Protect): a person's data sent to a recipient named in an accepted data
 * licence, encrypted to the recipient's public key. The row keeps the JWE (ciphertext only: the
 * platform cannot read it back), digests of what was sent, the key it was encrypted to, the
 * transfer register entry when it crossed a border, and the person's signed transfer receipt.
 * Never updated.
 */
export class CreateDataTransfers1813000000000 implements MigrationInterface {
  name = 'CreateDataTransfers1813000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.data_transfers (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        license_id text NOT NULL REFERENCES consent_records.data_licenses (id),
        offer_id text NOT NULL REFERENCES consent_records.data_offers (id),
        record_id text NOT NULL REFERENCES consent_records.records (id),
        recipient_party_id text NOT NULL,
        recipient_country text NOT NULL,
        purpose text NOT NULL,
        data_category text NOT NULL,
        key_algorithm text NOT NULL,
        key_id text NOT NULL,
        data_sha256 text NOT NULL,
        jwe text NOT NULL,
        transfer_register_id text,
        receipt text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await runner.query(
      `CREATE INDEX data_transfers_license_idx ON consent_records.data_transfers (application_id, license_id, created_at, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE consent_records.data_transfers`);
  }
}
