import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Collaborations (Agree): a shared space of parties (applications and people) with roles and
 * invitations, the agreements attached to it, and its history (one row per change).
 */
export class CreateCollaborations1809000000000 implements MigrationInterface {
  name = 'CreateCollaborations1809000000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.collaborations (
        id text PRIMARY KEY,
        owner_application_id text NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT collaborations_owner_fk FOREIGN KEY (owner_application_id) REFERENCES gateway.applications (id)
      )`);
    await runner.query(`
      CREATE TABLE gateway.collaboration_members (
        collaboration_id text NOT NULL,
        party_id text NOT NULL,
        party_type text NOT NULL,
        role text NOT NULL,
        status text NOT NULL,
        invited_by text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT collaboration_members_pk PRIMARY KEY (collaboration_id, party_id),
        CONSTRAINT collaboration_members_collaboration_fk FOREIGN KEY (collaboration_id) REFERENCES gateway.collaborations (id),
        CONSTRAINT collaboration_members_party_type_check CHECK (party_type IN ('application', 'person')),
        CONSTRAINT collaboration_members_role_check CHECK (role IN ('owner', 'member', 'viewer')),
        CONSTRAINT collaboration_members_status_check CHECK (status IN ('invited', 'accepted', 'declined', 'revoked'))
      )`);
    await runner.query(`CREATE INDEX collaboration_members_party_idx ON gateway.collaboration_members (party_id, status)`);
    await runner.query(`
      CREATE TABLE gateway.collaboration_agreements (
        collaboration_id text NOT NULL,
        agreement_id text NOT NULL,
        attached_by text NOT NULL,
        attached_at timestamptz NOT NULL,
        CONSTRAINT collaboration_agreements_pk PRIMARY KEY (collaboration_id, agreement_id),
        CONSTRAINT collaboration_agreements_collaboration_fk FOREIGN KEY (collaboration_id) REFERENCES gateway.collaborations (id),
        CONSTRAINT collaboration_agreements_agreement_fk FOREIGN KEY (agreement_id) REFERENCES gateway.agreements (id)
      )`);
    await runner.query(
      `CREATE INDEX collaboration_agreements_order_idx ON gateway.collaboration_agreements (collaboration_id, attached_at, agreement_id)`,
    );
    await runner.query(`
      CREATE TABLE gateway.collaboration_events (
        seq bigserial PRIMARY KEY,
        collaboration_id text NOT NULL,
        type text NOT NULL,
        actor text NOT NULL,
        subject text,
        detail jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL,
        CONSTRAINT collaboration_events_collaboration_fk FOREIGN KEY (collaboration_id) REFERENCES gateway.collaborations (id)
      )`);
    await runner.query(`CREATE INDEX collaboration_events_order_idx ON gateway.collaboration_events (collaboration_id, seq)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.collaboration_events`);
    await runner.query(`DROP TABLE gateway.collaboration_agreements`);
    await runner.query(`DROP TABLE gateway.collaboration_members`);
    await runner.query(`DROP TABLE gateway.collaborations`);
  }
}
