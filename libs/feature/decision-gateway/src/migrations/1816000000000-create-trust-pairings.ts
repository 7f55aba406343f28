import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Trust pairings (Connect): an issuing application and a counterparty application pair with mutual
 * acceptance; an active pairing's counterparty token is kept only as its SHA-256 digest.
 */
export class CreateTrustPairings1816000000000 implements MigrationInterface {
  name = 'CreateTrustPairings1816000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.trust_pairings (
        id text PRIMARY KEY,
        issuer_application_id text NOT NULL,
        counterparty_application_id text NOT NULL,
        name text NOT NULL,
        scopes text[] NOT NULL,
        status text NOT NULL,
        token_sha256 text,
        proposed_at timestamptz NOT NULL,
        accepted_at timestamptz,
        declined_at timestamptz,
        revoked_at timestamptz,
        revoked_by text,
        updated_at timestamptz NOT NULL,
        CONSTRAINT trust_pairings_issuer_fk FOREIGN KEY (issuer_application_id) REFERENCES gateway.applications (id),
        CONSTRAINT trust_pairings_counterparty_fk FOREIGN KEY (counterparty_application_id) REFERENCES gateway.applications (id),
        CONSTRAINT trust_pairings_status_check CHECK (status IN ('proposed', 'active', 'declined', 'revoked')),
        CONSTRAINT trust_pairings_two_parties_check CHECK (issuer_application_id <> counterparty_application_id),
        CONSTRAINT trust_pairings_token_check CHECK ((status = 'active') = (token_sha256 IS NOT NULL))
      )`);
    // One open pairing per direction; a declined or revoked one may be proposed again.
    await runner.query(
      `CREATE UNIQUE INDEX trust_pairings_open_idx ON gateway.trust_pairings (issuer_application_id, counterparty_application_id) WHERE status IN ('proposed', 'active')`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX trust_pairings_token_idx ON gateway.trust_pairings (token_sha256) WHERE token_sha256 IS NOT NULL`,
    );
    await runner.query(`CREATE INDEX trust_pairings_issuer_idx ON gateway.trust_pairings (issuer_application_id, proposed_at, id)`);
    await runner.query(
      `CREATE INDEX trust_pairings_counterparty_idx ON gateway.trust_pairings (counterparty_application_id, proposed_at, id)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.trust_pairings`);
  }
}
