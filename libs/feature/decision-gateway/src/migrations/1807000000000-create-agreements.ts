import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Multi-party agreements (Agree): documents stored once by SHA-256, agreements with their quorum,
 * parties with their signing outcome and receipt, each vote as an event row, and the signing
 * sessions this region opened for agreements homed in another region.
 *
 * A signing session of an agreement homed elsewhere names that region's application, which is not
 * in this region's tables, so decision sessions no longer reference gateway.applications.
 */
export class CreateAgreements1807000000000 implements MigrationInterface {
  name = 'CreateAgreements1807000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE gateway.decision_sessions DROP CONSTRAINT decision_sessions_application_fk`);
    await runner.query(`
      CREATE TABLE gateway.agreement_documents (
        sha256 text PRIMARY KEY,
        content bytea NOT NULL,
        media_type text NOT NULL,
        size_bytes integer NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT agreement_documents_sha256_check CHECK (sha256 ~ '^[0-9a-f]{64}$')
      )`);
    await runner.query(`
      CREATE TABLE gateway.agreements (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        title text NOT NULL,
        document_sha256 text NOT NULL,
        quorum_type text NOT NULL,
        quorum_threshold integer,
        quorum_required integer NOT NULL,
        status text NOT NULL,
        deadline timestamptz NOT NULL,
        idempotency_key text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        decided_at timestamptz,
        CONSTRAINT agreements_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id),
        CONSTRAINT agreements_document_fk FOREIGN KEY (document_sha256) REFERENCES gateway.agreement_documents (sha256),
        CONSTRAINT agreements_quorum_type_check CHECK (quorum_type IN ('all', 'majority', 'threshold')),
        CONSTRAINT agreements_status_check CHECK (status IN ('pending', 'partially_signed', 'active', 'declined', 'expired', 'withdrawn'))
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX agreements_idempotency_idx ON gateway.agreements (application_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await runner.query(`CREATE INDEX agreements_application_idx ON gateway.agreements (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE gateway.agreement_parties (
        id text PRIMARY KEY,
        agreement_id text NOT NULL,
        position integer NOT NULL,
        role text NOT NULL,
        person_id text NOT NULL,
        home_region text NOT NULL,
        session_token_sha256 text,
        decision_url text NOT NULL,
        outcome text,
        receipt_jws text,
        counter_proposal jsonb,
        decided_at timestamptz,
        CONSTRAINT agreement_parties_agreement_fk FOREIGN KEY (agreement_id) REFERENCES gateway.agreements (id),
        CONSTRAINT agreement_parties_position_unique UNIQUE (agreement_id, position),
        CONSTRAINT agreement_parties_outcome_check CHECK (outcome IS NULL OR outcome IN ('signed', 'declined', 'expired', 'countered'))
      )`);
    await runner.query(`
      CREATE TABLE gateway.agreement_votes (
        seq bigserial PRIMARY KEY,
        agreement_id text NOT NULL,
        party_id text NOT NULL,
        vote text NOT NULL,
        outcome text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT agreement_votes_once UNIQUE (agreement_id, party_id),
        CONSTRAINT agreement_votes_agreement_fk FOREIGN KEY (agreement_id) REFERENCES gateway.agreements (id),
        CONSTRAINT agreement_votes_vote_check CHECK (vote IN ('yes', 'no', 'counter'))
      )`);
    await runner.query(`
      CREATE TABLE gateway.agreement_remote_signings (
        agreement_id text NOT NULL,
        party_id text NOT NULL,
        session_token_sha256 text NOT NULL,
        decision_url text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT agreement_remote_signings_pk PRIMARY KEY (agreement_id, party_id)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE gateway.agreement_remote_signings');
    await runner.query('DROP TABLE gateway.agreement_votes');
    await runner.query('DROP TABLE gateway.agreement_parties');
    await runner.query('DROP TABLE gateway.agreements');
    await runner.query('DROP TABLE gateway.agreement_documents');
    await runner.query(
      `ALTER TABLE gateway.decision_sessions ADD CONSTRAINT decision_sessions_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id) NOT VALID`,
    );
  }
}
