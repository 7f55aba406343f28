import { createOutboxAndInbox, dropOutboxAndInbox } from '@svc/persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * OAP Conductor mode: agents, capability manifests, authorities, grants (with their decisions),
 * idempotency keys, DPoP and credential replay caches, escalations, revocations, attestation
 * tokens; the schema's outbox and inbox. Money is `numeric` (exact), never float.
 */
export class CreateOap1795400000000 implements MigrationInterface {
  name = 'CreateOap1795400000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE oap.agents (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active',
        agent_metadata jsonb,
        metadata_provenance text,
        trust_score integer NOT NULL DEFAULT 0,
        vouch_count integer NOT NULL DEFAULT 0,
        current_version_id text,
        suppressed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT agents_status_check CHECK (status IN ('active', 'suspended'))
      )`);
    await runner.query(`CREATE INDEX agents_application_idx ON oap.agents (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE oap.capability_versions (
        version_id text PRIMARY KEY,
        agent_id text NOT NULL,
        manifest_json text NOT NULL,
        manifest_sha256 text NOT NULL,
        published_at timestamptz NOT NULL,
        CONSTRAINT capability_versions_agent_fk FOREIGN KEY (agent_id) REFERENCES oap.agents (id)
      )`);
    await runner.query(`CREATE INDEX capability_versions_agent_idx ON oap.capability_versions (agent_id, published_at)`);
    await runner.query(`
      CREATE TABLE oap.authorities (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        agent_id text NOT NULL,
        principal_id text NOT NULL,
        status text NOT NULL,
        bounds_json text NOT NULL,
        purposes text[] NOT NULL DEFAULT '{}',
        valid_from timestamptz NOT NULL,
        valid_until timestamptz NOT NULL,
        cooling_off_seconds integer NOT NULL DEFAULT 0,
        manifest_sha256 text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        revoked_at timestamptz,
        CONSTRAINT authorities_agent_fk FOREIGN KEY (agent_id) REFERENCES oap.agents (id),
        CONSTRAINT authorities_status_check CHECK (status IN ('active', 'suspended', 'revoked')),
        CONSTRAINT authorities_window_check CHECK (valid_until > valid_from)
      )`);
    await runner.query(`CREATE INDEX authorities_agent_idx ON oap.authorities (agent_id, status, created_at)`);
    await runner.query(`CREATE INDEX authorities_application_idx ON oap.authorities (application_id, created_at, id)`);
    await runner.query(`
      CREATE TABLE oap.grants (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        agent_id text NOT NULL,
        authority_id text NOT NULL,
        scopes text[] NOT NULL,
        actions text[] NOT NULL,
        amount numeric,
        currency text,
        dpop_jkt text NOT NULL,
        agent_token_sha256 text NOT NULL,
        valid_until timestamptz NOT NULL,
        status text NOT NULL DEFAULT 'active',
        receipt_jti text NOT NULL,
        receipt text NOT NULL,
        context_hash text NOT NULL,
        request_json text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz,
        consumed_at timestamptz,
        CONSTRAINT grants_token_unique UNIQUE (agent_token_sha256),
        CONSTRAINT grants_receipt_jti_unique UNIQUE (receipt_jti),
        CONSTRAINT grants_status_check CHECK (status IN ('active', 'revoked'))
      )`);
    await runner.query(`CREATE INDEX grants_authority_idx ON oap.grants (authority_id, created_at)`);
    await runner.query(`
      CREATE TABLE oap.decisions (
        id uuid PRIMARY KEY,
        application_id text NOT NULL,
        agent_id text NOT NULL,
        authority_id text,
        decision text NOT NULL,
        denial_category text,
        cascade_step integer,
        reason_code text,
        grant_id text,
        escalation_id text,
        context_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        CONSTRAINT decisions_decision_check CHECK (decision IN ('allow', 'deny', 'escalate'))
      )`);
    await runner.query(`CREATE INDEX decisions_agent_idx ON oap.decisions (agent_id, created_at)`);
    await runner.query(`
      CREATE TABLE oap.idempotency_keys (
        application_id text NOT NULL,
        key text NOT NULL,
        scope text NOT NULL,
        request_sha256 text NOT NULL,
        state text NOT NULL,
        response_status integer,
        response_enc bytea,
        locked_until timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT idempotency_keys_pk PRIMARY KEY (application_id, scope, key),
        CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'done'))
      )`);
    await runner.query(`CREATE INDEX idempotency_keys_expiry_idx ON oap.idempotency_keys (expires_at)`);
    await runner.query(`
      CREATE TABLE oap.replay_cache (
        kind text NOT NULL,
        digest text NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT replay_cache_pk PRIMARY KEY (kind, digest)
      )`);
    await runner.query(`CREATE INDEX replay_cache_expiry_idx ON oap.replay_cache (expires_at)`);
    await runner.query(`
      CREATE TABLE oap.escalations (
        id text PRIMARY KEY,
        application_id text NOT NULL,
        agent_id text NOT NULL,
        authority_id text NOT NULL,
        principal_id text NOT NULL,
        status text NOT NULL,
        quorum_type text NOT NULL,
        approvers text[] NOT NULL,
        threshold integer NOT NULL,
        votes jsonb NOT NULL DEFAULT '{}',
        session_token_sha256 text NOT NULL,
        approval_ttl_at timestamptz NOT NULL,
        request_json text NOT NULL,
        grant_id text,
        agent_token_enc bytea,
        created_at timestamptz NOT NULL,
        resolved_at timestamptz,
        CONSTRAINT escalations_status_check CHECK (status IN ('pending', 'approved', 'denied', 'countered', 'expired'))
      )`);
    await runner.query(`CREATE INDEX escalations_application_idx ON oap.escalations (application_id, created_at)`);
    await runner.query(`
      CREATE TABLE oap.revocations (
        seq bigserial PRIMARY KEY,
        grant_id text NOT NULL,
        application_id text NOT NULL,
        reason text NOT NULL,
        revoked_at timestamptz NOT NULL,
        CONSTRAINT revocations_grant_unique UNIQUE (grant_id)
      )`);
    await runner.query(`
      CREATE TABLE oap.attestation_tokens (
        receipt_jti text PRIMARY KEY,
        grant_id text NOT NULL,
        format text NOT NULL,
        token text NOT NULL,
        claims_digest text NOT NULL,
        created_at timestamptz NOT NULL,
        retain_until timestamptz NOT NULL
      )`);
    await createOutboxAndInbox(runner, 'oap');
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropOutboxAndInbox(runner, 'oap');
    for (const table of [
      'attestation_tokens',
      'revocations',
      'escalations',
      'replay_cache',
      'idempotency_keys',
      'decisions',
      'grants',
      'authorities',
      'capability_versions',
      'agents',
    ]) {
      await runner.query(`DROP TABLE oap.${table}`);
    }
  }
}
