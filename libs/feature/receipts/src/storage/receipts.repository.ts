import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { ReceiptTransition } from '../events/transitions';
import type { ReceiptDocument, RecordType } from '../record/receipt-document';

/** Which service froze a receipt. */
export type ReceiptSource = 'consent-records' | 'oap-authorizer' | 'disclosure' | 'decision-gateway';

/** A frozen receipt row. `document` is parsed from the stored canonical text. */
export interface FrozenReceipt {
  recordId: string;
  applicationId: string;
  recordType: RecordType;
  document: ReceiptDocument;
  /** SHA-256 hex of the stored canonical text. */
  documentSha256: string;
  source: ReceiptSource;
  frozenAt: Date;
}

interface FrozenRow {
  record_id: string;
  application_id: string;
  record_type: RecordType;
  document: string;
  document_sha256: string;
  source: ReceiptSource;
  frozen_at: Date;
}

function toFrozen(row: FrozenRow): FrozenReceipt {
  return {
    recordId: row.record_id,
    applicationId: row.application_id,
    recordType: row.record_type,
    document: JSON.parse(row.document) as ReceiptDocument,
    documentSha256: row.document_sha256,
    source: row.source,
    frozenAt: row.frozen_at,
  };
}

/** Owns every query of the `receipts` schema. */
@Injectable()
export class ReceiptsRepository {
  constructor(private readonly dataSource: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  /** Inserts a frozen receipt; returns false (and writes nothing) when the record id already exists. */
  async insertFrozen(
    manager: EntityManager,
    row: {
      recordId: string;
      applicationId: string;
      recordType: RecordType;
      canonical: string;
      sha256: string;
      source: ReceiptSource;
      frozenAt: Date;
    },
  ): Promise<boolean> {
    const inserted = await queryRows<{ record_id: string }>(
      manager,
      `INSERT INTO receipts.frozen_receipts (record_id, application_id, record_type, document, document_sha256, source, frozen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (record_id) DO NOTHING RETURNING record_id`,
      [row.recordId, row.applicationId, row.recordType, row.canonical, row.sha256, row.source, row.frozenAt],
    );
    return inserted.length === 1;
  }

  /**
   * The receipt `recordId` if it belongs to `applicationId`; undefined otherwise. Another
   * application's receipt is indistinguishable from an unknown one.
   */
  async find(
    applicationId: string,
    recordId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<FrozenReceipt | undefined> {
    const rows: FrozenRow[] = await manager.query(
      `SELECT record_id, application_id, record_type, document, document_sha256, source, frozen_at
       FROM receipts.frozen_receipts WHERE record_id = $1 AND application_id = $2`,
      [recordId, applicationId],
    );
    return rows[0] ? toFrozen(rows[0]) : undefined;
  }

  /** Appends a transition; returns false when the same idempotency key was already appended. */
  async appendTransition(
    manager: EntityManager,
    recordId: string,
    transition: ReceiptTransition,
    canonical: string,
    idempotencyKey: string,
  ): Promise<boolean> {
    const inserted = await queryRows<{ seq: string }>(
      manager,
      `INSERT INTO receipts.receipt_transitions (record_id, transition_type, transition, occurred_at, idempotency_key)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (record_id, idempotency_key) DO NOTHING RETURNING seq`,
      [recordId, transition.type, canonical, new Date(transition.at), idempotencyKey],
    );
    return inserted.length === 1;
  }

  /** Transitions of a record, in time order then append order. */
  async transitions(recordId: string, manager: EntityManager = this.dataSource.manager): Promise<ReceiptTransition[]> {
    const rows: Array<{ transition: string }> = await manager.query(
      `SELECT transition FROM receipts.receipt_transitions WHERE record_id = $1 ORDER BY occurred_at, seq`,
      [recordId],
    );
    return rows.map((row) => JSON.parse(row.transition) as ReceiptTransition);
  }
}
