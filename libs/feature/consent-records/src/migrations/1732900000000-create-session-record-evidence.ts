import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Evidence of how the person of a decision session's record was bound (`principal_binding`):
 * named by the application's API token at mint, or by a principal assertion its server issued
 * (later: the person signing in on the hosted page). One row per session record, written with the
 * record and, like it, never updated. Records written before this migration have none.
 */
export class CreateSessionRecordEvidence1732900000000 implements MigrationInterface {
  name = 'CreateSessionRecordEvidence1732900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE consent_records.session_record_evidence (
        record_id text PRIMARY KEY,
        principal_binding text NOT NULL,
        CONSTRAINT session_record_evidence_record_fk FOREIGN KEY (record_id) REFERENCES consent_records.records (id),
        CONSTRAINT session_record_evidence_binding_check CHECK (principal_binding IN ('api_token', 'principal_assertion', 'hosted_sign_in'))
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE consent_records.session_record_evidence');
  }
}
