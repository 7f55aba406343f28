import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hybrid mode's customer policy engine, one per application: the OpenID AuthZEN 1.0 base URL, the
 * credential the engine expects (AES-256-GCM envelope under the key-encryption key, bound to the
 * application id; never stored in clear), the call timeout, and the trusted attester in whose
 * name the engine's answers are witnessed.
 */
export class CreatePolicyEngines1803000000000 implements MigrationInterface {
  name = 'CreatePolicyEngines1803000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE oversight.policy_engines (
        application_id text NOT NULL,
        base_url text NOT NULL,
        attester_id text NOT NULL,
        credential_type text NOT NULL,
        credential_header text,
        credential_enc bytea,
        timeout_ms integer NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT policy_engines_pkey PRIMARY KEY (application_id),
        CONSTRAINT policy_engines_attester_fk FOREIGN KEY (attester_id) REFERENCES oversight.trusted_attesters (id),
        CONSTRAINT policy_engines_credential_type_check CHECK (credential_type IN ('none', 'bearer', 'header')),
        CONSTRAINT policy_engines_credential_check CHECK ((credential_type = 'none') = (credential_enc IS NULL)),
        CONSTRAINT policy_engines_timeout_check CHECK (timeout_ms BETWEEN 100 AND 10000)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE oversight.policy_engines`);
  }
}
