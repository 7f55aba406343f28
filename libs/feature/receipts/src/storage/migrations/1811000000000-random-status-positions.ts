import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Status list positions handed out at random (a position no longer tells a verifier when a
 * credential was issued, nor links credentials issued one after the other): each list keeps which
 * positions are taken (`allocated`, a byte per position like `statuses`) and how many
 * (`used_count`, formerly the next sequential position, so the positions already taken are exactly
 * 0 … used_count − 1). Authority-record credentials join the credential types.
 */
export class RandomStatusPositions1811000000000 implements MigrationInterface {
  name = 'RandomStatusPositions1811000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE receipts.status_lists RENAME COLUMN next_index TO used_count`);
    await runner.query(`ALTER TABLE receipts.status_lists ADD COLUMN allocated bytea`);
    await runner.query(
      `UPDATE receipts.status_lists SET allocated = decode(repeat('01', used_count) || repeat('00', size - used_count), 'hex')`,
    );
    await runner.query(`ALTER TABLE receipts.status_lists ALTER COLUMN allocated SET NOT NULL`);
    await runner.query(`ALTER TABLE receipts.credentials DROP CONSTRAINT credentials_type_check`);
    await runner.query(
      `ALTER TABLE receipts.credentials ADD CONSTRAINT credentials_type_check CHECK (credential_type IN ('consent_receipt', 'verified_person', 'registered_agent', 'authority_record'))`,
    );
    // Authorities granted in the region (from authority.created / authority.revoked): whose authority
    // record credential may be issued, and which of them are revoked. The principal is kept as the
    // SHA-256 of their person id only: enough to check that a signed-in person granted it.
    await runner.query(`
      CREATE TABLE receipts.credential_authorities (
        authority_id text PRIMARY KEY,
        application_id text NOT NULL,
        principal_sha256 text NOT NULL,
        agent_id text NOT NULL,
        granted_at timestamptz NOT NULL,
        valid_until timestamptz,
        revoked_at timestamptz
      )`);
    await runner.query(`CREATE INDEX credential_authorities_principal_idx ON receipts.credential_authorities (principal_sha256)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE receipts.credential_authorities`);
    await runner.query(`DELETE FROM receipts.credentials WHERE credential_type = 'authority_record'`);
    await runner.query(`ALTER TABLE receipts.credentials DROP CONSTRAINT credentials_type_check`);
    await runner.query(
      `ALTER TABLE receipts.credentials ADD CONSTRAINT credentials_type_check CHECK (credential_type IN ('consent_receipt', 'verified_person', 'registered_agent'))`,
    );
    await runner.query(`ALTER TABLE receipts.status_lists DROP COLUMN allocated`);
    await runner.query(`ALTER TABLE receipts.status_lists RENAME COLUMN used_count TO next_index`);
  }
}
