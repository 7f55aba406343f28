import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { SignatureFormat } from './signature-formats';
import type { DisabledReason, Subscription } from './subscription';

interface SubscriptionRow {
  id: string;
  application_id: string;
  url: string;
  environment: 'development' | 'production';
  events: string[];
  signature_formats: SignatureFormat[];
  status: 'enabled' | 'disabled';
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  consecutive_failures: number;
  secret_enc: Buffer;
  previous_secret_enc: Buffer | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toSubscription(row: SubscriptionRow): Subscription {
  return {
    id: row.id,
    applicationId: row.application_id,
    url: row.url,
    environment: row.environment,
    events: row.events,
    signatureFormats: row.signature_formats,
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    consecutiveFailures: row.consecutive_failures,
    secretEnc: row.secret_enc,
    previousSecretEnc: row.previous_secret_enc,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Queries of webhooks.subscriptions. */
@Injectable()
export class SubscriptionsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Serialises creations per application (the subscription limit check), inside a transaction. */
  async lockApplication(manager: EntityManager, applicationId: string): Promise<void> {
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:subscriptions:${applicationId}`]);
  }

  async countForApplication(manager: EntityManager, applicationId: string): Promise<number> {
    const rows: Array<{ n: string }> = await manager.query('SELECT count(*) AS n FROM webhooks.subscriptions WHERE application_id = $1', [
      applicationId,
    ]);
    return Number(rows[0]?.n ?? 0);
  }

  async insert(manager: EntityManager, s: Subscription): Promise<void> {
    await manager.query(
      `INSERT INTO webhooks.subscriptions (id, application_id, url, environment, events, signature_formats, status, consecutive_failures, secret_enc, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'enabled', 0, $7, $8, $8)`,
      [s.id, s.applicationId, s.url, s.environment, s.events, s.signatureFormats, s.secretEnc, s.createdAt],
    );
  }

  /** Subscriptions disabled and not re-enabled (reads only the partial index of disabled rows). */
  async countDisabled(): Promise<number> {
    const rows: Array<{ disabled: string }> = await this.dataSource.query(
      `SELECT count(*) AS disabled FROM webhooks.subscriptions WHERE status = 'disabled'`,
    );
    return Number(rows[0]?.disabled ?? 0);
  }

  /** The application's subscription, or undefined (also for another application's id). */
  async find(
    applicationId: string,
    id: string,
    manager: EntityManager = this.dataSource.manager,
    forUpdate = false,
  ): Promise<Subscription | undefined> {
    const rows: SubscriptionRow[] = await manager.query(
      `SELECT * FROM webhooks.subscriptions WHERE id = $1 AND application_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
      [id, applicationId],
    );
    return rows[0] ? toSubscription(rows[0]) : undefined;
  }

  /** One page (keyset on created_at, id) of the application's subscriptions; fetch limit + 1. */
  async list(applicationId: string, limit: number, after?: { createdAt: string; id: string }): Promise<Subscription[]> {
    const rows: SubscriptionRow[] = after
      ? await this.dataSource.query(
          `SELECT * FROM webhooks.subscriptions WHERE application_id = $1 AND (created_at, id) > ($2::timestamptz, $3)
           ORDER BY created_at, id LIMIT $4`,
          [applicationId, after.createdAt, after.id, limit],
        )
      : await this.dataSource.query('SELECT * FROM webhooks.subscriptions WHERE application_id = $1 ORDER BY created_at, id LIMIT $2', [
          applicationId,
          limit,
        ]);
    return rows.map(toSubscription);
  }

  /** Enabled subscriptions of the given applications, with the events they listen to. */
  async enabledOfApplications(
    manager: EntityManager,
    applicationIds: readonly string[],
  ): Promise<Array<{ id: string; applicationId: string; events: string[] }>> {
    const rows: Array<{ id: string; application_id: string; events: string[] }> = await manager.query(
      `SELECT id, application_id, events FROM webhooks.subscriptions WHERE application_id = ANY($1::text[]) AND status = 'enabled'`,
      [applicationIds],
    );
    return rows.map((r) => ({ id: r.id, applicationId: r.application_id, events: r.events }));
  }

  /** Which of the given applications have at least one enabled subscription. */
  async applicationsWithEnabled(applicationIds: readonly string[]): Promise<Set<string>> {
    const rows: Array<{ application_id: string }> = await this.dataSource.query(
      `SELECT DISTINCT application_id FROM webhooks.subscriptions WHERE application_id = ANY($1::text[]) AND status = 'enabled'`,
      [applicationIds],
    );
    return new Set(rows.map((r) => r.application_id));
  }

  /** Deletes the subscription and (cascade) its deliveries; false when it did not exist. */
  async delete(manager: EntityManager, applicationId: string, id: string): Promise<boolean> {
    const rows = await queryRows(manager, 'DELETE FROM webhooks.subscriptions WHERE id = $1 AND application_id = $2 RETURNING id', [
      id,
      applicationId,
    ]);
    return rows.length > 0;
  }

  /** Installs a new current secret; the replaced one stays valid until `previousExpiresAt`. */
  async rotateSecret(
    manager: EntityManager,
    id: string,
    secretEnc: Buffer,
    previousEnc: Buffer,
    previousExpiresAt: Date,
    now: Date,
  ): Promise<Subscription> {
    const rows = await queryRows<SubscriptionRow>(
      manager,
      `UPDATE webhooks.subscriptions SET secret_enc = $2, previous_secret_enc = $3, previous_secret_expires_at = $4, updated_at = $5
       WHERE id = $1 RETURNING *`,
      [id, secretEnc, previousEnc, previousExpiresAt, now],
    );
    return toSubscription(rows[0]!);
  }

  /** Replaces the subscription's signature formats. */
  async updateSignatureFormats(
    manager: EntityManager,
    id: string,
    signatureFormats: readonly SignatureFormat[],
    now: Date,
  ): Promise<Subscription> {
    const rows = await queryRows<SubscriptionRow>(
      manager,
      'UPDATE webhooks.subscriptions SET signature_formats = $2, updated_at = $3 WHERE id = $1 RETURNING *',
      [id, signatureFormats, now],
    );
    return toSubscription(rows[0]!);
  }

  /** Re-enables a subscription and clears its failure count. */
  async enable(manager: EntityManager, id: string, now: Date): Promise<Subscription> {
    const rows = await queryRows<SubscriptionRow>(
      manager,
      `UPDATE webhooks.subscriptions SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL, consecutive_failures = 0, updated_at = $2
       WHERE id = $1 RETURNING *`,
      [id, now],
    );
    return toSubscription(rows[0]!);
  }
}
