import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** One row of an application's activity log. */
export interface ActivityEvent {
  id: string;
  /** Insertion order (the list's cursor position). */
  seq: string;
  applicationId: string;
  type: string;
  origin: string | null;
  method: string | null;
  path: string | null;
  occurredAt: Date;
}

/** Queries of the hosted pages' tables in the gateway schema (activity log, activated flows). */
@Injectable()
export class HostedRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Appends an activity event; the application must exist (foreign key). */
  async recordActivity(event: Omit<ActivityEvent, 'id' | 'seq'>): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO gateway.activity_events (id, application_id, type, origin, method, path, occurred_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [`activity_${randomUUID()}`, event.applicationId, event.type, event.origin, event.method, event.path, event.occurredAt],
    );
  }

  /** Newest first (insertion order); `afterSeq` is the `seq` of the previous page's last row. */
  async listActivity(applicationId: string, limit: number, afterSeq?: string): Promise<ActivityEvent[]> {
    const rows: Array<{
      id: string;
      seq: string;
      application_id: string;
      type: string;
      origin: string | null;
      method: string | null;
      path: string | null;
      occurred_at: Date;
    }> = await this.dataSource.query(
      `SELECT id, seq::text AS seq, application_id, type, origin, method, path, occurred_at FROM gateway.activity_events
         WHERE application_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
         ORDER BY seq DESC LIMIT $3`,
      [applicationId, afterSeq ?? null, limit],
    );
    return rows.map((r) => ({
      id: r.id,
      seq: r.seq,
      applicationId: r.application_id,
      type: r.type,
      origin: r.origin,
      method: r.method,
      path: r.path,
      occurredAt: r.occurred_at,
    }));
  }

  async applicationExists(applicationId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM gateway.applications WHERE id = $1`, [applicationId]);
    return rows.length > 0;
  }

  /** The application owning an activated flow, or undefined (unknown or never activated: a draft). */
  async flowApplication(flowId: string): Promise<string | undefined> {
    const rows: Array<{ application_id: string }> = await this.dataSource.query(
      `SELECT application_id FROM gateway.hosted_flows WHERE flow_id = $1`,
      [flowId],
    );
    return rows[0]?.application_id;
  }
}
