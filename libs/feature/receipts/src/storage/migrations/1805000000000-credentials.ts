import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Verifiable credentials (Verify surface): the IETF Token Status Lists of the region, the
 * credentials issued (SD-JWT VC, never their claims: a credential is the holder's, the issuer keeps
 * only what it needs to revoke it), the pre-authorized code offers and access tokens of OpenID4VCI
 * (SHA-256 digests only), single-use nonces for the holder's key proof, and the agents registered
 * in the region (the subjects of "registered agent" credentials).
 */
export class Credentials1805000000000 implements MigrationInterface {
  name = 'Credentials1805000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE receipts.status_lists (
        id text PRIMARY KEY,
        size integer NOT NULL,
        next_index integer NOT NULL DEFAULT 0,
        statuses bytea NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT status_lists_index_check CHECK (next_index BETWEEN 0 AND size)
      )`);
    await runner.query(`
      CREATE TABLE receipts.credentials (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        credential_type text NOT NULL,
        subject_ref text NOT NULL,
        holder_jkt text NOT NULL,
        status_list_id text NOT NULL REFERENCES receipts.status_lists (id),
        status_index integer NOT NULL,
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revocation_reason text,
        CONSTRAINT credentials_status_unique UNIQUE (status_list_id, status_index),
        CONSTRAINT credentials_type_check CHECK (credential_type IN ('consent_receipt', 'verified_person', 'registered_agent'))
      )`);
    await runner.query(`CREATE INDEX credentials_application_idx ON receipts.credentials (application_id, issued_at, id)`);
    await runner.query(
      `CREATE INDEX credentials_subject_idx ON receipts.credentials (application_id, subject_ref) WHERE revoked_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE receipts.credential_offers (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        credential_type text NOT NULL,
        subject_ref text NOT NULL,
        claims jsonb NOT NULL,
        code_sha256 text NOT NULL,
        code_expires_at timestamptz NOT NULL,
        token_sha256 text,
        token_expires_at timestamptz,
        issued_credential_id text,
        created_at timestamptz NOT NULL,
        CONSTRAINT credential_offers_code_unique UNIQUE (code_sha256),
        CONSTRAINT credential_offers_token_unique UNIQUE (token_sha256)
      )`);
    await runner.query(`
      CREATE TABLE receipts.credential_nonces (
        nonce_sha256 text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`);
    await runner.query(`CREATE INDEX credential_nonces_expiry_idx ON receipts.credential_nonces (expires_at)`);
    // Agents registered in the region (from oap.agent_registered): whose a "registered agent" credential may be.
    await runner.query(`
      CREATE TABLE receipts.registered_agents (
        agent_id text PRIMARY KEY,
        application_id text NOT NULL,
        agent_type text NOT NULL,
        registered_at timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE receipts.registered_agents`);
    await runner.query(`DROP TABLE receipts.credential_nonces`);
    await runner.query(`DROP TABLE receipts.credential_offers`);
    await runner.query(`DROP TABLE receipts.credentials`);
    await runner.query(`DROP TABLE receipts.status_lists`);
  }
}
