import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAP Oversight mode: trusted attesters (two token slots, stored only as SHA-256 digests),
 * elevation requests, witnessed attestations (keyed by the engine's attestation_id), the
 * per-agent-class sequence high-water marks, hybrid routes; the schema's outbox and inbox.
 */
export class CreateOversight1795500000000 implements MigrationInterface {
  name = 'CreateOversight1795500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS oversight`);
    await createOutboxAndInbox(runner, 'oversight');
    await runner.query(`
      CREATE TABLE oversight.trusted_attesters (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        name text NOT NULL,
        permissions text[] NOT NULL,
        scope_application_id text,
        status text NOT NULL,
        token_digest text,
        previous_token_digest text,
        previous_token_expires_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        rotated_at timestamptz,
        suspended_at timestamptz,
        destroyed_at timestamptz,
        last_heartbeat_at timestamptz,
        last_heartbeat jsonb,
        CONSTRAINT trusted_attesters_status_check CHECK (status IN ('active', 'suspended', 'destroyed')),
        CONSTRAINT trusted_attesters_token_digest_key UNIQUE (token_digest),
        CONSTRAINT trusted_attesters_previous_token_digest_key UNIQUE (previous_token_digest),
        CONSTRAINT trusted_attesters_destroyed_slots_check CHECK (status <> 'destroyed' OR (token_digest IS NULL AND previous_token_digest IS NULL))
      )`);
    await runner.query(`CREATE INDEX trusted_attesters_application_idx ON oversight.trusted_attesters (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE oversight.elevation_requests (
        id text PRIMARY KEY,
        attester_id text NOT NULL,
        application_id text NOT NULL,
        permission text NOT NULL,
        rationale text NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        decided_at timestamptz,
        decided_by text,
        CONSTRAINT elevation_requests_attester_fk FOREIGN KEY (attester_id) REFERENCES oversight.trusted_attesters (id),
        CONSTRAINT elevation_requests_status_check CHECK (status IN ('pending', 'granted', 'rejected'))
      )`);
    await runner.query(`CREATE INDEX elevation_requests_application_idx ON oversight.elevation_requests (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE oversight.attestations (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        attester_id text NOT NULL,
        attestation_key text NOT NULL,
        request_sha256 text NOT NULL,
        agent_class text NOT NULL,
        action_class text NOT NULL,
        decision text NOT NULL,
        decided_at timestamptz NOT NULL,
        sequence_number bigint NOT NULL,
        sequence_gap boolean NOT NULL,
        expected_sequence_number bigint,
        legal_basis text NOT NULL,
        evidence_digest text NOT NULL,
        context jsonb,
        requires_human_approval boolean NOT NULL,
        status text NOT NULL,
        received_at timestamptz NOT NULL,
        receipt text NOT NULL,
        receipt_jti text NOT NULL,
        approval_session_sha256 text,
        approval_ttl_at timestamptz,
        resolution_receipt text,
        resolution_receipt_jti text,
        resolved_at timestamptz,
        counter_proposal jsonb,
        counter_delivered_at timestamptz,
        CONSTRAINT attestations_attester_fk FOREIGN KEY (attester_id) REFERENCES oversight.trusted_attesters (id),
        CONSTRAINT attestations_key_unique UNIQUE (application_id, attestation_key),
        CONSTRAINT attestations_decision_check CHECK (decision IN ('allow', 'deny', 'escalate')),
        CONSTRAINT attestations_status_check CHECK (status IN ('witnessed', 'pending_approval', 'approved', 'denied', 'countered')),
        CONSTRAINT attestations_sequence_check CHECK (sequence_number > 0)
      )`);
    await runner.query(`CREATE INDEX attestations_agent_class_idx ON oversight.attestations (application_id, agent_class, received_at)`);
    await runner.query(
      `CREATE INDEX attestations_undelivered_counters_idx ON oversight.attestations (application_id, agent_class, resolved_at)
        WHERE status = 'countered' AND counter_delivered_at IS NULL`,
    );
    await runner.query(`
      CREATE TABLE oversight.agent_class_sequences (
        application_id text NOT NULL,
        agent_class text NOT NULL,
        last_sequence_number bigint NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT agent_class_sequences_pkey PRIMARY KEY (application_id, agent_class)
      )`);
    await runner.query(`
      CREATE TABLE oversight.agent_class_routes (
        application_id text NOT NULL,
        agent_class text NOT NULL,
        route text NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT agent_class_routes_pkey PRIMARY KEY (application_id, agent_class),
        CONSTRAINT agent_class_routes_route_check CHECK (route IN ('conductor', 'oversight'))
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE IF EXISTS oversight.agent_class_routes`);
    await runner.query(`DROP TABLE IF EXISTS oversight.agent_class_sequences`);
    await runner.query(`DROP TABLE IF EXISTS oversight.attestations`);
    await runner.query(`DROP TABLE IF EXISTS oversight.elevation_requests`);
    await runner.query(`DROP TABLE IF EXISTS oversight.trusted_attesters`);
    await dropOutboxAndInbox(runner, 'oversight');
  }
}
