import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Comply surface of an application: its regime modules, its governance policy (who may
 * activate flows, change modules, rotate keys, change the policy; which of those need a second
 * approver) and the change requests that carry four-eyes approvals. Every step of a change request
 * names the audit entry recording it.
 */
export class CreateComply1804000000000 implements MigrationInterface {
  name = 'CreateComply1804000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.compliance_modules (
        application_id text NOT NULL,
        regime text NOT NULL,
        enabled boolean NOT NULL,
        settings jsonb NOT NULL DEFAULT '{}',
        audit_entry_id text,
        updated_at timestamptz NOT NULL,
        CONSTRAINT compliance_modules_pk PRIMARY KEY (application_id, regime),
        CONSTRAINT compliance_modules_regime_check CHECK (regime IN ('gdpr', 'uk_gdpr', 'ccpa_cpra', 'lgpd', 'pipl'))
      )`);
    await runner.query(`
      CREATE TABLE gateway.governance_policies (
        application_id text PRIMARY KEY,
        policy jsonb NOT NULL,
        version integer NOT NULL,
        audit_entry_id text,
        updated_at timestamptz NOT NULL
      )`);
    await runner.query(`
      CREATE TABLE gateway.change_requests (
        seq bigserial NOT NULL,
        id text PRIMARY KEY,
        application_id text NOT NULL,
        action text NOT NULL,
        target text NOT NULL,
        changes jsonb NOT NULL,
        status text NOT NULL,
        requested_by text NOT NULL,
        reason text,
        decided_by text,
        steps jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        decided_at timestamptz,
        applied_at timestamptz,
        CONSTRAINT change_requests_action_check CHECK (action IN ('activate_flows', 'change_modules', 'rotate_keys', 'change_governance')),
        CONSTRAINT change_requests_status_check CHECK (status IN ('pending', 'approved', 'applied', 'rejected', 'expired')),
        CONSTRAINT change_requests_seq_uq UNIQUE (seq)
      )`);
    await runner.query(`CREATE INDEX change_requests_application_idx ON gateway.change_requests (application_id, seq)`);
    await runner.query(
      `CREATE INDEX change_requests_open_idx ON gateway.change_requests (application_id, action, target) WHERE status IN ('pending', 'approved')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.change_requests`);
    await runner.query(`DROP TABLE gateway.governance_policies`);
    await runner.query(`DROP TABLE gateway.compliance_modules`);
  }
}
