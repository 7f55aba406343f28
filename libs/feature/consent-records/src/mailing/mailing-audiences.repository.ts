import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { MailingAudience, MailingProvider, PermissionMapping, PurposeTags } from './mailing-audience';
import type { PermissionWrite, TagWrite } from './member-write';

interface AudienceRow {
  id: string;
  application_id: string;
  environment: 'development' | 'production';
  provider: MailingProvider;
  api_base_url: string;
  api_key_enc: Buffer;
  list_id: string;
  flow_id: string;
  permissions: PermissionMapping[];
  tags: PurposeTags[];
  webhook_secret_digest: string;
  created_at: Date;
}

const AUDIENCE_COLUMNS =
  'a.id, a.application_id, a.environment, a.provider, a.api_base_url, a.api_key_enc, a.list_id, a.flow_id, a.permissions, a.tags, a.webhook_secret_digest, a.created_at';

function toAudience(r: AudienceRow): MailingAudience {
  return {
    id: r.id,
    applicationId: r.application_id,
    environment: r.environment,
    provider: r.provider,
    apiBaseUrl: r.api_base_url,
    apiKeyEnc: r.api_key_enc,
    listId: r.list_id,
    flowId: r.flow_id,
    permissions: r.permissions,
    tags: r.tags,
    webhookSecretDigest: r.webhook_secret_digest,
    createdAt: r.created_at,
  };
}

export type SyncStatus = 'pending' | 'written' | 'failed' | 'skipped';

/** A record event to write to one member: what, and how far it got. */
export interface MailingSync {
  id: string;
  audienceId: string;
  eventId: string;
  eventType: string;
  recordId: string;
  email: string | null;
  permissions: PermissionWrite[];
  tags: TagWrite[];
  status: SyncStatus;
  occurredAt: Date;
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

export type NewMailingSync = Pick<
  MailingSync,
  'audienceId' | 'eventId' | 'eventType' | 'recordId' | 'email' | 'permissions' | 'tags' | 'status' | 'occurredAt' | 'lastError'
>;

interface SyncRow {
  id: string;
  audience_id: string;
  event_id: string;
  event_type: string;
  record_id: string;
  email: string | null;
  permissions: PermissionWrite[];
  tags: TagWrite[];
  status: SyncStatus;
  occurred_at: Date;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
}

function toSync(r: SyncRow): MailingSync {
  return {
    id: String(r.id),
    audienceId: r.audience_id,
    eventId: r.event_id,
    eventType: r.event_type,
    recordId: r.record_id,
    email: r.email,
    permissions: r.permissions,
    tags: r.tags,
    status: r.status,
    occurredAt: r.occurred_at,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
}

export type InboundStatus = 'pending' | 'withdrawn' | 'ignored' | 'failed';

/** An event the tool posted to the inbound webhook, and what came of it. */
export interface MailingInboundEvent {
  id: string;
  audienceId: string;
  type: string;
  email: string | null;
  listId: string | null;
  firedAt: string | null;
  status: InboundStatus;
  outcome: string | null;
  recordId: string | null;
  withdrawnPurposes: string[];
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  receivedAt: Date;
  completedAt: Date | null;
}

export type NewInboundEvent = Pick<MailingInboundEvent, 'audienceId' | 'type' | 'email' | 'listId' | 'firedAt' | 'status' | 'outcome'>;

interface InboundRow {
  id: string;
  audience_id: string;
  type: string;
  email: string | null;
  list_id: string | null;
  fired_at: string | null;
  status: InboundStatus;
  outcome: string | null;
  record_id: string | null;
  withdrawn_purposes: string[];
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  received_at: Date;
  completed_at: Date | null;
}

function toInbound(r: InboundRow): MailingInboundEvent {
  return {
    id: String(r.id),
    audienceId: r.audience_id,
    type: r.type,
    email: r.email,
    listId: r.list_id,
    firedAt: r.fired_at,
    status: r.status,
    outcome: r.outcome,
    recordId: r.record_id,
    withdrawnPurposes: r.withdrawn_purposes,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    receivedAt: r.received_at,
    completedAt: r.completed_at,
  };
}

/** A claimed unit of work with the integration it belongs to. */
export interface Claimed<T> {
  item: T;
  audience: MailingAudience;
}

/** Tables of the mailing-audience integrations, their member writes and inbound events. */
@Injectable()
export class MailingAudiencesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insertAudience(manager: EntityManager, a: MailingAudience): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      manager,
      `INSERT INTO consent_records.mailing_audiences (id, application_id, environment, provider, api_base_url, api_key_enc, list_id, flow_id, permissions, tags, webhook_secret_digest, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (application_id, flow_id, list_id) DO NOTHING RETURNING id`,
      [
        a.id,
        a.applicationId,
        a.environment,
        a.provider,
        a.apiBaseUrl,
        a.apiKeyEnc,
        a.listId,
        a.flowId,
        JSON.stringify(a.permissions),
        JSON.stringify(a.tags),
        a.webhookSecretDigest,
        a.createdAt,
      ],
    );
    return rows.length === 1;
  }

  async lockApplication(manager: EntityManager, applicationId: string): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('mailing_audiences:' || $1))`, [applicationId]);
  }

  async countForApplication(manager: EntityManager, applicationId: string): Promise<number> {
    const rows = await queryRows<{ n: number }>(
      manager,
      `SELECT count(*)::int AS n FROM consent_records.mailing_audiences WHERE application_id = $1`,
      [applicationId],
    );
    return rows[0]?.n ?? 0;
  }

  async findAudience(applicationId: string, id: string): Promise<MailingAudience | undefined> {
    const rows = await queryRows<AudienceRow>(
      this.dataSource,
      `SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a WHERE a.id = $1 AND a.application_id = $2`,
      [id, applicationId],
    );
    return rows[0] ? toAudience(rows[0]) : undefined;
  }

  async listAudiences(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<MailingAudience[]> {
    const rows = await queryRows<AudienceRow>(
      this.dataSource,
      `SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a
       WHERE a.application_id = $1 AND ($2::timestamptz IS NULL OR (a.created_at, a.id) < ($2::timestamptz, $3::text))
       ORDER BY a.created_at DESC, a.id DESC LIMIT $4`,
      [applicationId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toAudience);
  }

  /** Deletes the integration with its queued writes and inbound events; false when unknown. */
  async deleteAudience(applicationId: string, id: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM consent_records.mailing_audiences WHERE id = $1 AND application_id = $2 RETURNING id`,
      [id, applicationId],
    );
    return rows.length === 1;
  }

  /** The flows of the application that have a connected audience. */
  async flowsWithAudiences(applicationId: string): Promise<ReadonlySet<string>> {
    const rows = await queryRows<{ flow_id: string }>(
      this.dataSource,
      `SELECT DISTINCT flow_id FROM consent_records.mailing_audiences WHERE application_id = $1`,
      [applicationId],
    );
    return new Set(rows.map((r) => r.flow_id));
  }

  async audiencesOfFlow(manager: EntityManager, applicationId: string, flowId: string): Promise<MailingAudience[]> {
    const rows = await queryRows<AudienceRow>(
      manager,
      `SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a WHERE a.application_id = $1 AND a.flow_id = $2`,
      [applicationId, flowId],
    );
    return rows.map(toAudience);
  }

  async audienceBySecretDigest(digest: string): Promise<MailingAudience | undefined> {
    const rows = await queryRows<AudienceRow>(
      this.dataSource,
      `SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a WHERE a.webhook_secret_digest = $1`,
      [digest],
    );
    return rows[0] ? toAudience(rows[0]) : undefined;
  }

  /** Queues member writes (one per integration and event; a repeated event adds nothing). Returns how many were queued. */
  async insertSyncs(manager: EntityManager, syncs: readonly NewMailingSync[], now: Date): Promise<number> {
    let inserted = 0;
    for (const s of syncs) {
      const done = s.status === 'pending' ? null : now;
      const rows = await queryRows<{ id: string }>(
        manager,
        `INSERT INTO consent_records.mailing_syncs (audience_id, event_id, event_type, record_id, email, email_key, permissions, tags, status, occurred_at, next_attempt_at, last_error, created_at, completed_at)
         VALUES ($1, $2, $3, $4, $5, lower($5), $6, $7, $8, $9, $10, $11, $10, $12) ON CONFLICT (audience_id, event_id) DO NOTHING RETURNING id`,
        [
          s.audienceId,
          s.eventId,
          s.eventType,
          s.recordId,
          s.email,
          JSON.stringify(s.permissions),
          JSON.stringify(s.tags),
          s.status,
          s.occurredAt,
          now,
          s.lastError,
          done,
        ],
      );
      inserted += rows.length;
    }
    return inserted;
  }

  /**
   * Leases due member writes. A member's writes go out in the order their events happened: a write
   * waits while an earlier one for the same member and integration is still pending, so a retried
   * older state never overwrites a newer one. SKIP LOCKED plus the lease keep workers apart.
   */
  async claimSyncs(now: Date, leaseUntil: Date, limit: number): Promise<Array<Claimed<MailingSync>>> {
    const rows = await queryRows<SyncRow & { a: AudienceRow }>(
      this.dataSource,
      `WITH due AS (
         SELECT s.id FROM consent_records.mailing_syncs s
         WHERE s.status = 'pending' AND s.next_attempt_at <= $1 AND (s.lease_expires_at IS NULL OR s.lease_expires_at <= $1)
           AND NOT EXISTS (
             SELECT 1 FROM consent_records.mailing_syncs e
             WHERE e.audience_id = s.audience_id AND e.email_key = s.email_key AND e.status = 'pending' AND (e.occurred_at, e.id) < (s.occurred_at, s.id))
         ORDER BY s.next_attempt_at LIMIT $3
         FOR UPDATE OF s SKIP LOCKED
       )
       UPDATE consent_records.mailing_syncs s SET lease_expires_at = $2 FROM due WHERE s.id = due.id
       RETURNING s.*, (SELECT row_to_json(x) FROM (SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a WHERE a.id = s.audience_id) x) AS a`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({ item: toSync(r), audience: toAudience(jsonAudience(r.a)) }));
  }

  async finishSync(
    id: string,
    outcome: { status: 'written' | 'failed'; attempts: number; statusCode: number | null; error: string | null },
    now: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE consent_records.mailing_syncs SET status = $2, attempts = $3, last_status_code = $4, last_error = $5, completed_at = $6, lease_expires_at = NULL WHERE id = $1`,
      [id, outcome.status, outcome.attempts, outcome.statusCode, outcome.error, now],
    );
  }

  async retrySync(id: string, outcome: { attempts: number; statusCode: number | null; error: string }, nextAttemptAt: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE consent_records.mailing_syncs SET attempts = $2, last_status_code = $3, last_error = $4, next_attempt_at = $5, lease_expires_at = NULL WHERE id = $1`,
      [id, outcome.attempts, outcome.statusCode, outcome.error, nextAttemptAt],
    );
  }

  async insertInbound(event: NewInboundEvent, now: Date): Promise<MailingInboundEvent> {
    const rows = await queryRows<InboundRow>(
      this.dataSource,
      `INSERT INTO consent_records.mailing_inbound_events (audience_id, type, email, email_key, list_id, fired_at, status, outcome, next_attempt_at, received_at, completed_at)
       VALUES ($1, $2, $3, lower($3), $4, $5, $6, $7, $8, $8, $9) RETURNING *`,
      [
        event.audienceId,
        event.type,
        event.email,
        event.listId,
        event.firedAt,
        event.status,
        event.outcome,
        now,
        event.status === 'pending' ? null : now,
      ],
    );
    return toInbound(rows[0]!);
  }

  /** Leases due inbound events; one waits while a write of an earlier record event to the same member is pending. */
  async claimInbound(now: Date, leaseUntil: Date, limit: number): Promise<Array<Claimed<MailingInboundEvent>>> {
    const rows = await queryRows<InboundRow & { a: AudienceRow }>(
      this.dataSource,
      `WITH due AS (
         SELECT i.id FROM consent_records.mailing_inbound_events i
         WHERE i.status = 'pending' AND i.next_attempt_at <= $1 AND (i.lease_expires_at IS NULL OR i.lease_expires_at <= $1)
           AND NOT EXISTS (
             SELECT 1 FROM consent_records.mailing_syncs s
             WHERE s.audience_id = i.audience_id AND s.email_key = i.email_key AND s.status = 'pending' AND s.occurred_at <= i.received_at)
         ORDER BY i.next_attempt_at LIMIT $3
         FOR UPDATE OF i SKIP LOCKED
       )
       UPDATE consent_records.mailing_inbound_events i SET lease_expires_at = $2 FROM due WHERE i.id = due.id
       RETURNING i.*, (SELECT row_to_json(x) FROM (SELECT ${AUDIENCE_COLUMNS} FROM consent_records.mailing_audiences a WHERE a.id = i.audience_id) x) AS a`,
      [now, leaseUntil, limit],
    );
    return rows.map((r) => ({ item: toInbound(r), audience: toAudience(jsonAudience(r.a)) }));
  }

  async finishInbound(
    id: string,
    outcome: {
      status: 'withdrawn' | 'ignored' | 'failed';
      outcome: string;
      attempts: number;
      recordId: string | null;
      withdrawnPurposes: readonly string[];
      statusCode: number | null;
      error: string | null;
    },
    now: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE consent_records.mailing_inbound_events
       SET status = $2, outcome = $3, attempts = $4, record_id = $5, withdrawn_purposes = $6, last_status_code = $7, last_error = $8, completed_at = $9, lease_expires_at = NULL
       WHERE id = $1`,
      [
        id,
        outcome.status,
        outcome.outcome,
        outcome.attempts,
        outcome.recordId,
        [...outcome.withdrawnPurposes],
        outcome.statusCode,
        outcome.error,
        now,
      ],
    );
  }

  async retryInbound(
    id: string,
    outcome: { attempts: number; statusCode: number | null; error: string },
    nextAttemptAt: Date,
  ): Promise<void> {
    await this.dataSource.query(
      `UPDATE consent_records.mailing_inbound_events SET attempts = $2, last_status_code = $3, last_error = $4, next_attempt_at = $5, lease_expires_at = NULL WHERE id = $1`,
      [id, outcome.attempts, outcome.statusCode, outcome.error, nextAttemptAt],
    );
  }

  async listSyncs(audienceId: string, limit: number, beforeId?: string): Promise<MailingSync[]> {
    const rows = await queryRows<SyncRow>(
      this.dataSource,
      `SELECT * FROM consent_records.mailing_syncs WHERE audience_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
      [audienceId, beforeId ?? null, limit],
    );
    return rows.map(toSync);
  }

  async listInbound(audienceId: string, limit: number, beforeId?: string): Promise<MailingInboundEvent[]> {
    const rows = await queryRows<InboundRow>(
      this.dataSource,
      `SELECT * FROM consent_records.mailing_inbound_events WHERE audience_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint) ORDER BY id DESC LIMIT $3`,
      [audienceId, beforeId ?? null, limit],
    );
    return rows.map(toInbound);
  }

  /** The record currently speaking for this email address on the flow (record_heads), if any. */
  async currentRecordId(applicationId: string, flowId: string, email: string): Promise<string | undefined> {
    const rows = await queryRows<{ record_id: string }>(
      this.dataSource,
      `SELECT record_id FROM consent_records.record_heads WHERE application_id = $1 AND flow_id = $2 AND subject_key = $3`,
      [applicationId, flowId, `email:${email.toLowerCase()}`],
    );
    return rows[0]?.record_id;
  }
}

/** row_to_json turns bytea into `\x…` hex text and timestamps into strings. */
function jsonAudience(
  raw: AudienceRow | (Omit<AudienceRow, 'api_key_enc' | 'created_at'> & { api_key_enc: string; created_at: string }),
): AudienceRow {
  const keyEnc = raw.api_key_enc;
  return {
    ...raw,
    api_key_enc: typeof keyEnc === 'string' ? Buffer.from(keyEnc.replace(/^\\x/, ''), 'hex') : keyEnc,
    created_at: new Date(raw.created_at),
  };
}
