import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clean rooms: two applications of the region compare their consented audiences as counts only.
 * A room holds its two parties, each party's purpose, the minimum cohort size and its state; a
 * comparison keeps only the counts it answered (suppressed ones as null) and its audit entry.
 */
export class CreateCleanRooms1804000000000 implements MigrationInterface {
  name = 'CreateCleanRooms1804000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.clean_rooms (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        name text NOT NULL,
        initiator_application_id text NOT NULL,
        partner_application_id text NOT NULL,
        initiator_purpose text NOT NULL,
        partner_purpose text,
        min_cohort_size integer NOT NULL,
        status text NOT NULL,
        audit_entry_ids jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL,
        decided_at timestamptz,
        CONSTRAINT clean_rooms_seq_uq UNIQUE (seq),
        CONSTRAINT clean_rooms_status_check CHECK (status IN ('proposed', 'active', 'declined')),
        CONSTRAINT clean_rooms_parties_check CHECK (initiator_application_id <> partner_application_id),
        CONSTRAINT clean_rooms_cohort_check CHECK (min_cohort_size >= 10)
      )`);
    await runner.query(`CREATE INDEX clean_rooms_initiator_idx ON consent_records.clean_rooms (initiator_application_id, seq)`);
    await runner.query(`CREATE INDEX clean_rooms_partner_idx ON consent_records.clean_rooms (partner_application_id, seq)`);
    await runner.query(`
      CREATE TABLE consent_records.clean_room_comparisons (
        seq bigserial PRIMARY KEY,
        clean_room_id text NOT NULL,
        requested_by text NOT NULL,
        counts jsonb NOT NULL,
        suppressed text[] NOT NULL,
        audit_entry_id text NOT NULL,
        computed_at timestamptz NOT NULL,
        CONSTRAINT clean_room_comparisons_room_fk FOREIGN KEY (clean_room_id) REFERENCES consent_records.clean_rooms (id)
      )`);
    await runner.query(`CREATE INDEX clean_room_comparisons_room_idx ON consent_records.clean_room_comparisons (clean_room_id, seq)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE consent_records.clean_room_comparisons`);
    await runner.query(`DROP TABLE consent_records.clean_rooms`);
  }
}
