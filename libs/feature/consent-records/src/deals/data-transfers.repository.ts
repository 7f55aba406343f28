import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** A secure transfer as stored (never updated). */
export interface DataTransfer {
  id: string;
  applicationId: string;
  licenseId: string;
  offerId: string;
  recordId: string;
  recipientPartyId: string;
  recipientCountry: string;
  purpose: string;
  dataCategory: string;
  keyAlgorithm: string;
  keyId: string;
  dataSha256: string;
  jwe: string;
  transferRegisterId: string | null;
  receipt: string;
  createdAt: Date;
}

const toTransfer = (r: Record<string, unknown>): DataTransfer => ({
  id: r.id as string,
  applicationId: r.application_id as string,
  licenseId: r.license_id as string,
  offerId: r.offer_id as string,
  recordId: r.record_id as string,
  recipientPartyId: r.recipient_party_id as string,
  recipientCountry: r.recipient_country as string,
  purpose: r.purpose as string,
  dataCategory: r.data_category as string,
  keyAlgorithm: r.key_algorithm as string,
  keyId: r.key_id as string,
  dataSha256: r.data_sha256 as string,
  jwe: r.jwe as string,
  transferRegisterId: (r.transfer_register_id as string | null) ?? null,
  receipt: r.receipt as string,
  createdAt: new Date(r.created_at as string),
});

/** SQL of secure transfers (schema consent_records). */
@Injectable()
export class DataTransfersRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(t: DataTransfer): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO consent_records.data_transfers
         (id, application_id, license_id, offer_id, record_id, recipient_party_id, recipient_country, purpose, data_category,
          key_algorithm, key_id, data_sha256, jwe, transfer_register_id, receipt, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      [
        t.id,
        t.applicationId,
        t.licenseId,
        t.offerId,
        t.recordId,
        t.recipientPartyId,
        t.recipientCountry,
        t.purpose,
        t.dataCategory,
        t.keyAlgorithm,
        t.keyId,
        t.dataSha256,
        t.jwe,
        t.transferRegisterId,
        t.receipt,
        t.createdAt,
      ],
    );
  }

  async find(applicationId: string, licenseId: string, id: string): Promise<DataTransfer | undefined> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT * FROM consent_records.data_transfers WHERE application_id = $1 AND license_id = $2 AND id = $3`,
      [applicationId, licenseId, id],
    );
    return rows[0] ? toTransfer(rows[0]) : undefined;
  }

  /** The licence's transfers, oldest first, after the (created_at, id) cursor. */
  async list(applicationId: string, licenseId: string, limit: number, after?: { createdAt: string; id: string }): Promise<DataTransfer[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT * FROM consent_records.data_transfers
        WHERE application_id = $1 AND license_id = $2 AND ($3::timestamptz IS NULL OR (created_at, id) > ($3::timestamptz, $4))
        ORDER BY created_at, id LIMIT $5`,
      [applicationId, licenseId, after?.createdAt ?? null, after?.id ?? '', limit],
    );
    return rows.map(toTransfer);
  }
}
