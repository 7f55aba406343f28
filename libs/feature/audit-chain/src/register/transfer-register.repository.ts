import type { DataSource } from 'typeorm';

/** A crossing as stored. */
export interface TransferRow {
  readonly seq: number;
  readonly id: string;
  readonly applicationId: string;
  readonly reference: string;
  readonly transferCase: string;
  readonly dataCategories: readonly string[];
  readonly fromCountry: string;
  readonly toCountry: string;
  readonly recipient: string;
  readonly purpose: string;
  readonly lawfulBasis: string;
  readonly derogationArticle: string | null;
  readonly adequacyVerdict: string;
  readonly adequacyDecision: string | null;
  readonly adequacyTableVersion: string;
  /** Receipts whose data crosses (their processing_locations state it). */
  readonly recordIds: readonly string[];
  readonly auditEntryId: string;
  readonly recordedAt: Date;
}

/** Filters of a register listing. */
export interface TransferFilter {
  readonly toCountry?: string;
  readonly dataCategory?: string;
  readonly lawfulBasis?: string;
  readonly transferCase?: string;
  readonly from?: Date;
  readonly to?: Date;
}

const COLUMNS = `seq, id, application_id, reference, transfer_case, data_categories, from_country, to_country, recipient, purpose,
  lawful_basis, derogation_article, adequacy_verdict, adequacy_decision, adequacy_table_version, record_ids, audit_entry_id, recorded_at`;

type Row = Record<string, unknown>;

function toTransfer(row: Row): TransferRow {
  return {
    seq: Number(row.seq),
    id: row.id as string,
    applicationId: row.application_id as string,
    reference: row.reference as string,
    transferCase: row.transfer_case as string,
    dataCategories: row.data_categories as string[],
    fromCountry: row.from_country as string,
    toCountry: row.to_country as string,
    recipient: row.recipient as string,
    purpose: row.purpose as string,
    lawfulBasis: row.lawful_basis as string,
    derogationArticle: (row.derogation_article as string | null) ?? null,
    adequacyVerdict: row.adequacy_verdict as string,
    adequacyDecision: (row.adequacy_decision as string | null) ?? null,
    adequacyTableVersion: row.adequacy_table_version as string,
    recordIds: (row.record_ids as string[] | null) ?? [],
    auditEntryId: row.audit_entry_id as string,
    recordedAt: new Date(row.recorded_at as string),
  };
}

/** The `residency.transfers` table. */
export class TransferRegisterRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Inserts a crossing; a repeated (application, reference) returns the first one. */
  async insert(row: Omit<TransferRow, 'seq'>): Promise<TransferRow> {
    const inserted: Row[] = await this.dataSource.query(
      `INSERT INTO residency.transfers (id, application_id, reference, transfer_case, data_categories, from_country, to_country, recipient, purpose,
         lawful_basis, derogation_article, adequacy_verdict, adequacy_decision, adequacy_table_version, audit_entry_id, recorded_at, record_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
       ON CONFLICT (application_id, reference) DO NOTHING
       RETURNING ${COLUMNS}`,
      [
        row.id,
        row.applicationId,
        row.reference,
        row.transferCase,
        row.dataCategories,
        row.fromCountry,
        row.toCountry,
        row.recipient,
        row.purpose,
        row.lawfulBasis,
        row.derogationArticle,
        row.adequacyVerdict,
        row.adequacyDecision,
        row.adequacyTableVersion,
        row.auditEntryId,
        row.recordedAt.toISOString(),
        row.recordIds,
      ],
    );
    if (inserted[0]) return toTransfer(inserted[0]);
    const existing: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM residency.transfers WHERE application_id = $1 AND reference = $2`,
      [row.applicationId, row.reference],
    );
    if (!existing[0]) throw new Error('transfer vanished after a conflicting insert');
    return toTransfer(existing[0]);
  }

  /** The application's crossings oldest first, after `afterSeq`, matching `filter`. */
  async list(applicationId: string, filter: TransferFilter, limit: number, afterSeq = 0): Promise<TransferRow[]> {
    const where = ['application_id = $1', 'seq > $2'];
    const params: unknown[] = [applicationId, afterSeq];
    const add = (clause: (n: number) => string, value: unknown) => {
      params.push(value);
      where.push(clause(params.length));
    };
    if (filter.toCountry) add((n) => `to_country = $${n}`, filter.toCountry);
    if (filter.dataCategory) add((n) => `$${n} = ANY(data_categories)`, filter.dataCategory);
    if (filter.lawfulBasis) add((n) => `lawful_basis = $${n}`, filter.lawfulBasis);
    if (filter.transferCase) add((n) => `transfer_case = $${n}`, filter.transferCase);
    if (filter.from) add((n) => `recorded_at >= $${n}`, filter.from.toISOString());
    if (filter.to) add((n) => `recorded_at < $${n}`, filter.to.toISOString());
    params.push(limit);
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM residency.transfers WHERE ${where.join(' AND ')} ORDER BY seq LIMIT $${params.length}`,
      params,
    );
    return rows.map(toTransfer);
  }

  /** Destination countries of the region's recorded crossings per data category (for the posture and receipts). */
  async destinationsByCategory(): Promise<Map<string, string[]>> {
    const rows: Array<{ category: string; countries: string[] }> = await this.dataSource.query(
      `SELECT category, array_agg(DISTINCT to_country ORDER BY to_country) AS countries FROM residency.transfers, unnest(data_categories) AS category GROUP BY category`,
    );
    return new Map(rows.map((row) => [row.category, row.countries]));
  }
}
