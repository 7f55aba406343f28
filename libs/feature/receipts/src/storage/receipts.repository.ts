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

/** A receipt to freeze: its canonical document and where it came from. */
export interface NewFrozenReceipt {
  recordId: string;
  applicationId: string;
  recordType: RecordType;
  canonical: string;
  sha256: string;
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

  /**
   * Inserts frozen receipts with one statement; returns the record ids it inserted (an id already
   * frozen is left as it is and not returned).
   */
  async insertFrozen(manager: EntityManager, rows: readonly NewFrozenReceipt[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const inserted = await queryRows<{ record_id: string }>(
      manager,
      `INSERT INTO receipts.frozen_receipts (record_id, application_id, record_type, document, document_sha256, source, frozen_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])
       ON CONFLICT (record_id) DO NOTHING RETURNING record_id`,
      [
        rows.map((row) => row.recordId),
        rows.map((row) => row.applicationId),
        rows.map((row) => row.recordType),
        rows.map((row) => row.canonical),
        rows.map((row) => row.sha256),
        rows.map((row) => row.source),
        rows.map((row) => row.frozenAt),
      ],
    );
    return new Set(inserted.map((row) => row.record_id));
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
