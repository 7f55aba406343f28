import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The keyed digest of a person's email that other regions ask about when a sign-in at the wrong
 * region finds no account there (HMAC-SHA256 under the deployment-wide lookup key; filled at
 * sign-up and, for earlier people, when the region starts with the key configured).
 */
export class AddPersonEmailLookup1733000000000 implements MigrationInterface {
  name = 'AddPersonEmailLookup1733000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.people ADD COLUMN email_lookup_digest bytea`);
    await runner.query(
      `CREATE INDEX people_email_lookup_idx ON gateway.people (email_lookup_digest) WHERE email_lookup_digest IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX gateway.people_email_lookup_idx`);
    await runner.query(`ALTER TABLE gateway.people DROP COLUMN email_lookup_digest`);
  }
}
