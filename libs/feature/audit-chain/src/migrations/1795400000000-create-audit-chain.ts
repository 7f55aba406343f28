import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The region's audit chain, its signed checkpoints and the witness state.
 *
 * `canonical` is `text` on purpose: the hash covers its exact UTF-8 bytes, and a `jsonb` column
 * would be normalised by Postgres (key order, number forms), breaking verification.
 */
export class CreateAuditChain1795400000000 implements MigrationInterface {
  name = 'CreateAuditChain1795400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE audit.entries (
        idx bigint NOT NULL,
        id text NOT NULL,
        previous_hash text NOT NULL,
        hash text NOT NULL,
        canonical text NOT NULL,
        entry_type text NOT NULL,
        application_id text,
        agent_id text,
        source_event_id text,
        created_at timestamptz NOT NULL,
        CONSTRAINT entries_pk PRIMARY KEY (idx),
        CONSTRAINT entries_id_unique UNIQUE (id),
        CONSTRAINT entries_source_event_unique UNIQUE (source_event_id),
        CONSTRAINT entries_idx_check CHECK (idx >= 0)
      )`);
    await runner.query(`CREATE INDEX entries_application_idx ON audit.entries (application_id, idx) WHERE application_id IS NOT NULL`);
    await runner.query(`CREATE INDEX entries_agent_idx ON audit.entries (agent_id, idx) WHERE agent_id IS NOT NULL`);
    await runner.query(`
      CREATE TABLE audit.checkpoints (
        seq bigint NOT NULL,
        origin text NOT NULL,
        tree_size bigint NOT NULL,
        root_hash text NOT NULL,
        head_hash text NOT NULL,
        signed_note text NOT NULL,
        kid text NOT NULL,
        verifier_key text NOT NULL,
        created_at timestamptz NOT NULL,
        witness_status text NOT NULL,
        witness_name text,
        cosigned_note text,
        cosignature_timestamp bigint,
        witness_attempts integer NOT NULL DEFAULT 0,
        witness_last_error text,
        witness_next_attempt_at timestamptz,
        CONSTRAINT checkpoints_pk PRIMARY KEY (seq),
        CONSTRAINT checkpoints_witness_status_check CHECK (witness_status IN ('not_configured', 'pending', 'cosigned', 'superseded'))
      )`);
    await runner.query(
      `CREATE INDEX checkpoints_pending_idx ON audit.checkpoints (witness_next_attempt_at) WHERE witness_status = 'pending'`,
    );
    await runner.query(`
      CREATE TABLE audit.witness_state (
        witness_name text NOT NULL,
        cosigned_size bigint NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT witness_state_pk PRIMARY KEY (witness_name)
      )`);
    await createOutboxAndInbox(runner, 'audit');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, 'audit');
    await runner.query('DROP TABLE audit.witness_state');
    await runner.query('DROP TABLE audit.checkpoints');
    await runner.query('DROP TABLE audit.entries');
  }
}
