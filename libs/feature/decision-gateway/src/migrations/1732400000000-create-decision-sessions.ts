import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Decision sessions (consent, approval, signature_request), the votes of approvers and signers,
 * and consent tokens. Session and consent tokens are looked up by their SHA-256 digest.
 */
export class CreateDecisionSessions1732400000000 implements MigrationInterface {
  name = 'CreateDecisionSessions1732400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.decision_sessions (
        token_sha256 text PRIMARY KEY,
        session_token text,
        application_id text NOT NULL,
        kind text NOT NULL,
        status text NOT NULL,
        outcome text,
        flow_id text,
        flow_version integer,
        consent_path text,
        purposes text[] NOT NULL DEFAULT '{}',
        delivery_mode text NOT NULL,
        embed_origin text,
        principal_id text,
        trigger_type text,
        reference text,
        quorum_type text,
        quorum_required integer,
        participants text[] NOT NULL DEFAULT '{}',
        proposal jsonb,
        counter_proposal jsonb,
        evidence jsonb,
        decision_url text NOT NULL,
        deadline timestamptz NOT NULL,
        created_via text NOT NULL,
        exchange_token_sha256 text,
        exchanged_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz,
        CONSTRAINT decision_sessions_token_unique UNIQUE (session_token),
        CONSTRAINT decision_sessions_kind_check CHECK (kind IN ('consent', 'approval', 'signature_request')),
        CONSTRAINT decision_sessions_delivery_mode_check CHECK (delivery_mode IN ('embed', 'popup', 'redirect', 'direct')),
        CONSTRAINT decision_sessions_created_via_check CHECK (created_via IN ('decisions', 'consent_sessions', 'escalation')),
        CONSTRAINT decision_sessions_consent_flow_check CHECK (kind <> 'consent' OR (flow_id IS NOT NULL AND flow_version IS NOT NULL)),
        CONSTRAINT decision_sessions_application_fk FOREIGN KEY (application_id) REFERENCES gateway.applications (id)
      )`);
    // Inbox (open sessions per application, by deadline or newest) and the deadline sweep.
    await runner.query(
      `CREATE INDEX decision_sessions_open_deadline_idx ON gateway.decision_sessions (deadline, token_sha256) WHERE completed_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX decision_sessions_open_app_idx ON gateway.decision_sessions (application_id, principal_id, created_at) WHERE completed_at IS NULL`,
    );
    await runner.query(
      `CREATE INDEX decision_sessions_participants_idx ON gateway.decision_sessions USING gin (participants) WHERE completed_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE gateway.decision_votes (
        token_sha256 text NOT NULL,
        participant_id text NOT NULL,
        vote text NOT NULL,
        counter_proposal jsonb,
        created_at timestamptz NOT NULL,
        CONSTRAINT decision_votes_pk PRIMARY KEY (token_sha256, participant_id),
        CONSTRAINT decision_votes_session_fk FOREIGN KEY (token_sha256) REFERENCES gateway.decision_sessions (token_sha256),
        CONSTRAINT decision_votes_vote_check CHECK (vote IN ('yes', 'no', 'counter'))
      )`);
    await runner.query(`
      CREATE TABLE gateway.consent_tokens (
        token_sha256 text PRIMARY KEY,
        session_token_sha256 text NOT NULL,
        application_id text NOT NULL,
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        verified_at timestamptz,
        CONSTRAINT consent_tokens_session_fk FOREIGN KEY (session_token_sha256) REFERENCES gateway.decision_sessions (token_sha256)
      )`);
    await runner.query(`CREATE INDEX consent_tokens_session_idx ON gateway.consent_tokens (session_token_sha256)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE gateway.consent_tokens');
    await runner.query('DROP TABLE gateway.decision_votes');
    await runner.query('DROP TABLE gateway.decision_sessions');
  }
}
