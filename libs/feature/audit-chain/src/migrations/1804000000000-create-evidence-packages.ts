import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evidence packages issued for an application's audit period: the signed compact JWS as handed
 * out (so the same bytes can be fetched again and compared), its SHA-256 and what it covers.
 */
export class CreateEvidencePackages1804000000000 implements MigrationInterface {
  name = 'CreateEvidencePackages1804000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit.evidence_packages (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        application_id text NOT NULL,
        period_from timestamptz NOT NULL,
        period_to timestamptz NOT NULL,
        kid text NOT NULL,
        package text NOT NULL,
        package_sha256 text NOT NULL,
        entries integer NOT NULL,
        checkpoint_sequence bigint,
        created_at timestamptz NOT NULL,
        CONSTRAINT evidence_packages_seq_uq UNIQUE (seq),
        CONSTRAINT evidence_packages_period_check CHECK (period_to > period_from)
      )`);
    await runner.query(`CREATE INDEX evidence_packages_application_idx ON audit.evidence_packages (application_id, seq)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE audit.evidence_packages`);
  }
}
