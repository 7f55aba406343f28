import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delegation grants (`dlg_<region>_…`): one person (the principal) lets another (the delegate) act
 * in their context on named API surfaces and actions until an end date. Offered by the principal,
 * accepted by the delegate, revocable by either.
 */
export class CreateDelegationGrants1732900000000 implements MigrationInterface {
  name = 'CreateDelegationGrants1732900000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.delegation_grants (
        id text PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('guardian', 'caregiver', 'power_of_attorney', 'it_admin', 'peer')),
        principal_person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        delegate_person_id text NOT NULL REFERENCES gateway.people (id) ON DELETE CASCADE,
        application_id text NOT NULL,
        surfaces text[] NOT NULL,
        actions text[] NOT NULL,
        status text NOT NULL CHECK (status IN ('offered', 'active', 'revoked')),
        purpose text,
        evidence_reference text,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        accepted_at timestamptz,
        revoked_at timestamptz,
        revoked_by text,
        idempotency_key text,
        CHECK (principal_person_id <> delegate_person_id)
      )`);
    await runner.query(
      `CREATE UNIQUE INDEX delegation_grants_idempotency ON gateway.delegation_grants (principal_person_id, idempotency_key) WHERE idempotency_key IS NOT NULL`,
    );
    await runner.query(`CREATE INDEX delegation_grants_principal ON gateway.delegation_grants (principal_person_id, created_at, id)`);
    await runner.query(`CREATE INDEX delegation_grants_delegate ON gateway.delegation_grants (delegate_person_id, created_at, id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.delegation_grants`);
  }
}
