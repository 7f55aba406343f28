import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One pseudonym key per person per application (`receipts.subject_pseudonym_keys`): a receipt's
 * `pii_principal_id` is a keyed hash of the person's reference under a secret of their own, stored
 * encrypted under the KEK in the home region, so erasure destroys it (crypto-shredding) and the
 * receipts frozen before no longer resolve to the person. `reference_digest` is
 * SHA-256("<kind>:" + SHA-256(reference)), computable from the digests decision-gateway sends.
 */
export class SubjectPseudonymKeys1812000000001 implements MigrationInterface {
  name = 'SubjectPseudonymKeys1812000000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE receipts.subject_pseudonym_keys (
        application_id text NOT NULL,
        reference_digest text NOT NULL,
        secret_encrypted bytea NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT subject_pseudonym_keys_pk PRIMARY KEY (application_id, reference_digest),
        CONSTRAINT subject_pseudonym_keys_digest_check CHECK (reference_digest ~ '^[0-9a-f]{64}$')
      )`);
    // The former one-secret-per-application keys: with them, anyone holding the platform's key and a
    // person's email could still recompute the pseudonym of receipts frozen before this change, even
    // after the person's erasure. Destroying them shreds those receipts' link to every person.
    await runner.query('DROP TABLE receipts.principal_pseudonym_keys');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE receipts.principal_pseudonym_keys (
        application_id text NOT NULL,
        secret_encrypted bytea NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT principal_pseudonym_keys_pk PRIMARY KEY (application_id)
      )`);
    await runner.query('DROP TABLE receipts.subject_pseudonym_keys');
  }
}
