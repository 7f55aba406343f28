import { Injectable } from '@nestjs/common';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';

/** A record of a person as a data subject request reads it. */
export interface PersonRecordRow {
  id: string;
  flow_id: string;
  flow_version: number;
  subject_external_id: string | null;
  subject_email: string | null;
  decisions: Record<string, { decision: string }>;
  collection_channel: string;
  captured_at: Date;
  recorded_at: Date;
  expires_at: Date | null;
  previous_record_id: string | null;
}

/** Tables whose rows hang off a record (foreign keys), emptied before the record on erasure. */
const RECORD_CHILDREN = ['record_heads', 'withdrawals', 'record_expiries', 'session_record_evidence', 'processing_restrictions'] as const;

/** The storage side of a data subject request over consent records (`consent_records.person_data`). */
@Injectable()
export class PersonDataRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The application's records (superseded ones too) whose subject email (normalised) or external id has one of the digests. */
  async recordsForSubjectDigests(
    applicationId: string,
    externalIdDigests: readonly string[],
    emailDigests: readonly string[],
  ): Promise<PersonRecordRow[]> {
    if (emailDigests.length === 0 && externalIdDigests.length === 0) return [];
    return queryRows(
      this.dataSource,
      `SELECT id, flow_id, flow_version, subject_external_id, subject_email, decisions, collection_channel, captured_at, recorded_at, expires_at, previous_record_id
         FROM consent_records.records
        WHERE application_id = $1
          AND ((subject_email IS NOT NULL AND encode(sha256(convert_to(lower(btrim(subject_email)), 'UTF8')), 'hex') = ANY($2))
            OR (subject_external_id IS NOT NULL AND encode(sha256(convert_to(subject_external_id, 'UTF8')), 'hex') = ANY($3)))
        ORDER BY recorded_at, id`,
      [applicationId, [...emailDigests], [...externalIdDigests]],
    );
  }

  async restrictionsOf(recordIds: readonly string[]): Promise<Array<{ record_id: string; purpose: string; restricted_at: Date }>> {
    if (recordIds.length === 0) return [];
    return queryRows(
      this.dataSource,
      `SELECT record_id, purpose, restricted_at FROM consent_records.processing_restrictions WHERE record_id = ANY($1) ORDER BY restricted_at`,
      [[...recordIds]],
    );
  }

  /** Marks a purpose of a record restricted (Art. 18); false when it already was. */
  async restrict(recordId: string, purpose: string, applicationId: string, dataRequestId: string, at: Date): Promise<boolean> {
    const inserted: unknown[] = await queryRows(
      this.dataSource,
      `INSERT INTO consent_records.processing_restrictions (record_id, purpose, application_id, data_request_id, restricted_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (record_id, purpose) DO NOTHING RETURNING record_id`,
      [recordId, purpose, applicationId, dataRequestId, at],
    );
    return inserted.length > 0;
  }

  /** Deletes the records and every row that hangs off them, in one transaction. */
  async erase(recordIds: readonly string[]): Promise<void> {
    if (recordIds.length === 0) return;
    await this.dataSource.transaction(async (manager) => {
      for (const table of RECORD_CHILDREN)
        await manager.query(`DELETE FROM consent_records.${table} WHERE record_id = ANY($1)`, [recordIds]);
      await manager.query(`UPDATE consent_records.form_intakes SET record_id = NULL WHERE record_id = ANY($1)`, [recordIds]);
      await manager.query(`UPDATE consent_records.data_offers SET record_id = NULL WHERE record_id = ANY($1)`, [recordIds]);
      // Newer records of the same person point at older ones; all of them go together.
      await manager.query(`DELETE FROM consent_records.records WHERE id = ANY($1)`, [recordIds]);
    });
  }

  /** Only the newest record of a person and flow speaks for them (older ones are superseded). */
  async isHead(applicationId: string, recordId: string): Promise<boolean> {
    const rows: unknown[] = await queryRows(
      this.dataSource,
      `SELECT 1 FROM consent_records.record_heads WHERE application_id = $1 AND record_id = $2 LIMIT 1`,
      [applicationId, recordId],
    );
    return rows.length > 0;
  }
}
