import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * People homed in this region: accounts, one-time email codes (digests only), the browser's
 * sign-in sessions (cookie digests only), passkeys, WebAuthn challenges, throttles of code sends
 * and failures, the aggregated sign-in failures waiting for their audit event, and the links
 * applications keep between their own subject references and a person.
 */
export class CreatePeople1732700000000 implements MigrationInterface {
  name = 'CreatePeople1732700000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.people (
        id text PRIMARY KEY,
        email text NOT NULL,
        email_verified_at timestamptz,
        display_name text NOT NULL,
        locale text NOT NULL,
        time_zone text NOT NULL,
        home_country text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT people_id_check CHECK (id ~ '^usr_[a-z]+_[a-z2-7]{20}$'),
        CONSTRAINT people_country_check CHECK (home_country ~ '^[A-Z]{2}$'),
        CONSTRAINT people_email_lower_check CHECK (email = lower(email))
      )`);
    await runner.query(`CREATE UNIQUE INDEX people_email_key ON gateway.people (email)`);
    await runner.query(`
      CREATE TABLE gateway.person_email_codes (
        id text PRIMARY KEY,
        purpose text NOT NULL CHECK (purpose IN ('sign_in', 'sign_up')),
        email text NOT NULL,
        person_id text REFERENCES gateway.people (id) ON DELETE CASCADE,
        code_digest text NOT NULL,
        sign_up jsonb,
        return_to text NOT NULL,
        failed_attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await runner.query(`CREATE INDEX person_email_codes_expiry_idx ON gateway.person_email_codes (expires_at)`);
    await runner.query(`
      CREATE TABLE gateway.person_sessions (
        session_sha256 text PRIMARY KEY,
        person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        methods text[] NOT NULL,
        authenticated_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        CONSTRAINT person_sessions_sha256_check CHECK (session_sha256 ~ '^[0-9a-f]{64}$')
      )`);
    await runner.query(`CREATE INDEX person_sessions_person_idx ON gateway.person_sessions (person_id)`);
    await runner.query(`
      CREATE TABLE gateway.passkeys (
        credential_id text PRIMARY KEY,
        person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        public_key bytea NOT NULL,
        counter bigint NOT NULL,
        transports text[] NOT NULL,
        device_type text NOT NULL,
        backed_up boolean NOT NULL,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz
      )`);
    await runner.query(`CREATE INDEX passkeys_person_idx ON gateway.passkeys (person_id, created_at)`);
    await runner.query(`
      CREATE TABLE gateway.webauthn_challenges (
        id text PRIMARY KEY,
        purpose text NOT NULL CHECK (purpose IN ('register', 'authenticate')),
        person_id text REFERENCES gateway.people (id) ON DELETE CASCADE,
        challenge text NOT NULL,
        return_to text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await runner.query(`
      CREATE TABLE gateway.person_throttles (
        key text PRIMARY KEY,
        window_started_at timestamptz NOT NULL,
        count integer NOT NULL,
        locked_until timestamptz
      )`);
    await runner.query(`
      CREATE TABLE gateway.sign_in_failure_windows (
        window_started_at timestamptz NOT NULL,
        method text NOT NULL,
        reason text NOT NULL,
        failures integer NOT NULL,
        reported_at timestamptz,
        PRIMARY KEY (window_started_at, method, reason)
      )`);
    await runner.query(`
      CREATE TABLE gateway.person_links (
        id text PRIMARY KEY,
        application_id text NOT NULL REFERENCES gateway.applications (id) ON DELETE CASCADE,
        person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        subject_kind text NOT NULL CHECK (subject_kind IN ('external_id', 'email')),
        subject_value text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT person_links_subject_key UNIQUE (application_id, subject_kind, subject_value)
      )`);
    await runner.query(`CREATE INDEX person_links_person_idx ON gateway.person_links (person_id, created_at, id)`);
    await runner.query(`CREATE INDEX person_links_application_idx ON gateway.person_links (application_id, created_at, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const table of [
      'person_links',
      'sign_in_failure_windows',
      'person_throttles',
      'webauthn_challenges',
      'passkeys',
      'person_sessions',
      'person_email_codes',
      'people',
    ]) {
      await runner.query(`DROP TABLE gateway.${table}`);
    }
  }
}
