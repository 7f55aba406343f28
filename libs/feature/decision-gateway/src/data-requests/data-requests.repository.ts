import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { DataRequest, DataRequestKind, DataRequestStatus, RaisedBy, Rectification } from './data-request';

interface DataRequestRow {
  id: string;
  application_id: string;
  person_id: string;
  kind: DataRequestKind;
  status: DataRequestStatus;
  raised_by: RaisedBy;
  purposes: string[];
  rectification: Rectification | null;
  received_at: Date;
  due_at: Date;
  extended_at: Date | null;
  extension_reason: string | null;
  started_at: Date | null;
  completed_at: Date | null;
  rejected_at: Date | null;
  rejection_reason: string | null;
  result: Record<string, unknown>;
  updated_at: Date;
}

const toRequest = (r: DataRequestRow): DataRequest => ({
  id: r.id,
  applicationId: r.application_id,
  personId: r.person_id,
  kind: r.kind,
  status: r.status,
  raisedBy: r.raised_by,
  purposes: r.purposes,
  rectification: r.rectification,
  receivedAt: r.received_at,
  dueAt: r.due_at,
  extendedAt: r.extended_at,
  extensionReason: r.extension_reason,
  startedAt: r.started_at,
  completedAt: r.completed_at,
  rejectedAt: r.rejected_at,
  rejectionReason: r.rejection_reason,
  result: r.result,
  updatedAt: r.updated_at,
});

/** Whose requests a list or read may show: an application's, or a person's own. */
export type DataRequestOwner = { applicationId: string } | { personId: string };

export interface DataRequestFilter {
  status?: DataRequestStatus;
  kind?: DataRequestKind;
  personId?: string;
}

/** A stored access or portability export. */
export interface StoredExport {
  dataRequestId: string;
  personId: string;
  tokenSha256: string;
  /** The link's token under the key-encryption key (AAD: the request id), so reads can show the link. */
  tokenSealed: Buffer;
  manifest: Record<string, unknown>;
  bodySealed: Buffer;
  createdAt: Date;
  expiresAt: Date;
}

interface ExportRow {
  data_request_id: string;
  person_id: string;
  token_sha256: string;
  token_sealed: Buffer;
  manifest: Record<string, unknown>;
  body_sealed: Buffer;
  created_at: Date;
  expires_at: Date;
}

/** Queries of gateway.data_requests and gateway.data_request_exports. */
@Injectable()
export class DataRequestsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  async insert(manager: EntityManager, r: DataRequest): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.data_requests (id, application_id, person_id, kind, status, raised_by, purposes, rectification, received_at, due_at, result, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $9)`,
      [
        r.id,
        r.applicationId,
        r.personId,
        r.kind,
        r.status,
        r.raisedBy,
        r.purposes,
        r.rectification === null ? null : JSON.stringify(r.rectification),
        r.receivedAt,
        r.dueAt,
        JSON.stringify(r.result),
      ],
    );
  }

  /** Writes every field a move may change. */
  async save(manager: EntityManager, r: DataRequest): Promise<void> {
    await manager.query(
      `UPDATE gateway.data_requests SET status = $2, due_at = $3, extended_at = $4, extension_reason = $5, started_at = $6, completed_at = $7,
         rejected_at = $8, rejection_reason = $9, result = $10, rectification = $11, updated_at = $12 WHERE id = $1`,
      [
        r.id,
        r.status,
        r.dueAt,
        r.extendedAt,
        r.extensionReason,
        r.startedAt,
        r.completedAt,
        r.rejectedAt,
        r.rejectionReason,
        JSON.stringify(r.result),
        r.rectification === null ? null : JSON.stringify(r.rectification),
        r.updatedAt,
      ],
    );
  }

  async find(
    id: string,
    owner: DataRequestOwner,
    options: { manager?: EntityManager; lock?: boolean } = {},
  ): Promise<DataRequest | undefined> {
    const byApp = 'applicationId' in owner;
    const rows: DataRequestRow[] = await queryRows(
      options.manager ?? this.dataSource,
      `SELECT * FROM gateway.data_requests WHERE id = $1 AND ${byApp ? 'application_id' : 'person_id'} = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [id, byApp ? owner.applicationId : owner.personId],
    );
    return rows[0] ? toRequest(rows[0]) : undefined;
  }

  /** Oldest first, keyset on (received_at, id). */
  async list(
    owner: DataRequestOwner,
    filter: DataRequestFilter,
    limit: number,
    after?: { receivedAt: string; id: string },
  ): Promise<DataRequest[]> {
    const byApp = 'applicationId' in owner;
    const rows: DataRequestRow[] = await queryRows(
      this.dataSource,
      `SELECT * FROM gateway.data_requests WHERE ${byApp ? 'application_id' : 'person_id'} = $1
         AND ($2::text IS NULL OR status = $2) AND ($3::text IS NULL OR kind = $3) AND ($4::text IS NULL OR person_id = $4)
         AND ($5::timestamptz IS NULL OR (received_at, id) > ($5::timestamptz, $6::text))
       ORDER BY received_at, id LIMIT $7`,
      [
        byApp ? owner.applicationId : owner.personId,
        filter.status ?? null,
        filter.kind ?? null,
        filter.personId ?? null,
        after?.receivedAt ?? null,
        after?.id ?? null,
        limit,
      ],
    );
    return rows.map(toRequest);
  }

  async insertExport(manager: EntityManager, e: StoredExport): Promise<void> {
    await manager.query(
      `INSERT INTO gateway.data_request_exports (data_request_id, person_id, token_sha256, token_sealed, manifest, body_sealed, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [e.dataRequestId, e.personId, e.tokenSha256, e.tokenSealed, JSON.stringify(e.manifest), e.bodySealed, e.createdAt, e.expiresAt],
    );
  }

  /** The request's export while it has not expired; with `tokenSha256`, only when the link's token matches. */
  async findExport(dataRequestId: string, now: Date, tokenSha256?: string): Promise<StoredExport | undefined> {
    const rows: ExportRow[] = await queryRows(
      this.dataSource,
      `SELECT * FROM gateway.data_request_exports WHERE data_request_id = $1 AND expires_at > $2 AND ($3::text IS NULL OR token_sha256 = $3)`,
      [dataRequestId, now, tokenSha256 ?? null],
    );
    const r = rows[0];
    return r
      ? {
          dataRequestId: r.data_request_id,
          personId: r.person_id,
          tokenSha256: r.token_sha256,
          tokenSealed: r.token_sealed,
          manifest: r.manifest,
          bodySealed: r.body_sealed,
          createdAt: r.created_at,
          expiresAt: r.expires_at,
        }
      : undefined;
  }

  /** Erasure: the person's exports go with the rest of their data. */
  async deleteExportsOf(manager: EntityManager, personId: string): Promise<number> {
    const rows: unknown[] = await queryRows(
      manager,
      `DELETE FROM gateway.data_request_exports WHERE person_id = $1 RETURNING data_request_id`,
      [personId],
    );
    return rows.length;
  }
}
