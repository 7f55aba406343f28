import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cross-border directory as this region knows it: the latest minimized status of each person
 * at each application, from every region's `directory.subject_status` (this region's included).
 * No identifier, email or name of the person: only the keyed hash, the home country, initials,
 * per-purpose status and a count.
 */
export class CreateDirectoryEntries1733000000000 implements MigrationInterface {
  name = 'CreateDirectoryEntries1733000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.directory_entries (
        application_id text NOT NULL,
        subject_ref text NOT NULL,
        home_region text NOT NULL,
        home_country text NOT NULL,
        initials text NOT NULL,
        purposes jsonb NOT NULL,
        active_count integer NOT NULL,
        as_of timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        PRIMARY KEY (application_id, subject_ref),
        CONSTRAINT directory_entries_ref_check CHECK (subject_ref ~ '^[0-9a-f]{64}$')
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.directory_entries');
  }
}
