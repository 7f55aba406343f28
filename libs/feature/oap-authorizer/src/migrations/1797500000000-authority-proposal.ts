import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Authorities the application proposes and the person grants on a hosted page: two more statuses,
 * no principal until granted, and the digest of the proposal page's token.
 */
export class AuthorityProposal1797500000000 implements MigrationInterface {
  name = 'AuthorityProposal1797500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE oap.authorities DROP CONSTRAINT authorities_status_check`);
    await runner.query(
      `ALTER TABLE oap.authorities ADD CONSTRAINT authorities_status_check CHECK (status IN ('proposed', 'declined', 'active', 'suspended', 'revoked'))`,
    );
    await runner.query(`ALTER TABLE oap.authorities ALTER COLUMN principal_id DROP NOT NULL`);
    await runner.query(`ALTER TABLE oap.authorities ADD COLUMN proposal_token_sha256 text`);
    await runner.query(
      `ALTER TABLE oap.authorities ADD CONSTRAINT authorities_principal_check CHECK (principal_id IS NOT NULL OR status IN ('proposed', 'declined'))`,
    );
    await runner.query(
      `CREATE UNIQUE INDEX authorities_proposal_token_idx ON oap.authorities (proposal_token_sha256) WHERE proposal_token_sha256 IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DELETE FROM oap.authorities WHERE status IN ('proposed', 'declined')`);
    await runner.query(`DROP INDEX oap.authorities_proposal_token_idx`);
    await runner.query(`ALTER TABLE oap.authorities DROP CONSTRAINT authorities_principal_check`);
    await runner.query(`ALTER TABLE oap.authorities DROP COLUMN proposal_token_sha256`);
    await runner.query(`ALTER TABLE oap.authorities ALTER COLUMN principal_id SET NOT NULL`);
    await runner.query(`ALTER TABLE oap.authorities DROP CONSTRAINT authorities_status_check`);
    await runner.query(
      `ALTER TABLE oap.authorities ADD CONSTRAINT authorities_status_check CHECK (status IN ('active', 'suspended', 'revoked'))`,
    );
  }
}
