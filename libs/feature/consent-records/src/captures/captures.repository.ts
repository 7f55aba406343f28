import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { PurposeDecision } from '../records/record';
import type { Capture, CaptureChannel } from './capture';

interface CaptureRow {
  token_sha256: string;
  application_id: string;
  flow_id: string;
  flow_version: number;
  origin: string;
  channel: CaptureChannel;
  decisions: Record<string, PurposeDecision>;
  created_at: Date;
  expires_at: Date;
  committed_at: Date | null;
  record_id: string | null;
  rendering_digest: string | null;
}

function toCapture(row: CaptureRow): Capture {
  return {
    tokenSha256: row.token_sha256,
    applicationId: row.application_id,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    origin: row.origin,
    channel: row.channel,
    decisions: row.decisions,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    committedAt: row.committed_at,
    recordId: row.record_id,
    renderingDigest: row.rendering_digest,
  };
}

/** Queries of consent_records.captures. */
@Injectable()
export class CapturesRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(capture: Capture): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.captures (token_sha256, application_id, flow_id, flow_version, origin, channel, decisions, created_at, expires_at, rendering_digest)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        capture.tokenSha256,
        capture.applicationId,
        capture.flowId,
        capture.flowVersion,
        capture.origin,
        capture.channel,
        JSON.stringify(capture.decisions),
        capture.createdAt,
        capture.expiresAt,
        capture.renderingDigest,
      ],
    );
  }

  async findForUpdate(manager: EntityManager, tokenSha256: string, applicationId: string): Promise<Capture | undefined> {
    const rows: CaptureRow[] = await manager.query(
      `SELECT * FROM consent_records.captures WHERE token_sha256 = $1 AND application_id = $2 FOR UPDATE`,
      [tokenSha256, applicationId],
    );
    return rows[0] ? toCapture(rows[0]) : undefined;
  }

  async markCommitted(manager: EntityManager, tokenSha256: string, recordId: string, at: Date): Promise<void> {
    await manager.query(`UPDATE consent_records.captures SET committed_at = $2, record_id = $3 WHERE token_sha256 = $1`, [
      tokenSha256,
      at,
      recordId,
    ]);
  }

  async delete(manager: EntityManager, tokenSha256: string): Promise<void> {
    await manager.query(`DELETE FROM consent_records.captures WHERE token_sha256 = $1 AND committed_at IS NULL`, [tokenSha256]);
  }

  /** Deletes uncommitted captures past their expiry; returns how many. */
  async deleteExpired(now: Date): Promise<number> {
    const rows = await queryRows<{ token_sha256: string }>(
      this.dataSource.manager,
      `DELETE FROM consent_records.captures WHERE committed_at IS NULL AND expires_at <= $1 RETURNING token_sha256`,
      [now],
    );
    return rows.length;
  }
}
