import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock } from '@svc/config';
import { queryRows } from '@svc/persistence';
import { DataSource } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import { WithdrawConsent } from './use-cases/withdraw-consent.use-case';

interface PersonRecordRow {
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

/**
 * `consent_records.person_data` (decision-gateway, fulfilling a data subject request): the
 * consent records of one application whose subject is one of the references the application
 * linked to the person (digests only cross the bus).
 *
 * - `export`: the records with their decisions and withdrawals.
 * - `erase`: the records and the rows that hang off them are deleted (their subject email or
 *   external id is contact data); the consent receipts stay with the receipts service under a
 *   pseudonym that erasure makes unresolvable, and the audit chain keeps digests.
 * - `object`: each named purpose still granted on the person's current records is withdrawn
 *   (channel `own_records`, `consent.purpose_revoked` with `objection`: the receipt shows
 *   `objection recorded`, the `consent.purpose_revoked` webhook fires, the audit chain records it).
 * - `restrict`: each named purpose granted on the person's records is marked restricted
 *   (`processing_restrictions`): kept, not processed (Art. 18).
 */
@Controller()
export class PersonDataRpcHandlers {
  constructor(
    private readonly dataSource: DataSource,
    private readonly withdrawConsent: WithdrawConsent,
    private readonly clock: Clock,
  ) {}

  @RpcHandler('consent_records.person_data')
  async personData(request: RpcRequest<'consent_records.person_data'>): Promise<RpcReplyInit<'consent_records.person_data'>> {
    const records = await this.recordsOf(request.applicationId, request.subjects);
    const recordIds = records.map((r) => r.id);
    switch (request.action) {
      case 'export': {
        const withdrawals: Array<{ record_id: string; purpose: string | null; channel: string; withdrawn_at: Date }> =
          recordIds.length === 0
            ? []
            : await queryRows(this.dataSource, `SELECT record_id, purpose, channel, withdrawn_at FROM consent_records.withdrawals WHERE record_id = ANY($1) ORDER BY id`, [recordIds]);
        const restrictions: Array<{ record_id: string; purpose: string; restricted_at: Date }> =
          recordIds.length === 0
            ? []
            : await queryRows(this.dataSource, `SELECT record_id, purpose, restricted_at FROM consent_records.processing_restrictions WHERE record_id = ANY($1) ORDER BY restricted_at`, [recordIds]);
        const items = records.map((r) => ({
          record_id: r.id,
          flow_id: r.flow_id,
          flow_version: r.flow_version,
          subject: { ...(r.subject_email !== null ? { email: r.subject_email } : {}), ...(r.subject_external_id !== null ? { external_id: r.subject_external_id } : {}) },
          decisions: Object.fromEntries(Object.entries(r.decisions).map(([purpose, d]) => [purpose, d.decision])),
          collection_channel: r.collection_channel,
          captured_at: r.captured_at.toISOString(),
          recorded_at: r.recorded_at.toISOString(),
          expires_at: r.expires_at?.toISOString() ?? null,
          previous_record_id: r.previous_record_id,
          withdrawals: withdrawals.filter((w) => w.record_id === r.id).map((w) => ({ purpose: w.purpose, channel: w.channel, withdrawn_at: w.withdrawn_at.toISOString() })),
          restrictions: restrictions.filter((x) => x.record_id === r.id).map((x) => ({ purpose: x.purpose, restricted_at: x.restricted_at.toISOString() })),
        }));
        return { parts: [{ name: 'consent-records/consent_records', itemsJson: JSON.stringify(items) }], recordIds, authorityIds: [], affected: 0 };
      }
      case 'erase': {
        if (recordIds.length > 0) {
          await this.dataSource.transaction(async (manager) => {
            for (const table of RECORD_CHILDREN) await manager.query(`DELETE FROM consent_records.${table} WHERE record_id = ANY($1)`, [recordIds]);
            await manager.query(`UPDATE consent_records.form_intakes SET record_id = NULL WHERE record_id = ANY($1)`, [recordIds]);
            await manager.query(`UPDATE consent_records.data_offers SET record_id = NULL WHERE record_id = ANY($1)`, [recordIds]);
            // Newer records of the same person point at older ones; all of them go together.
            await manager.query(`DELETE FROM consent_records.records WHERE id = ANY($1)`, [recordIds]);
          });
        }
        return { parts: [], recordIds, authorityIds: [], affected: recordIds.length };
      }
      case 'object': {
        let affected = 0;
        for (const r of records) {
          if (!(await this.isHead(request.applicationId, r.id))) continue;
          const withdrawn: Array<{ purpose: string | null }> = await queryRows(this.dataSource, `SELECT purpose FROM consent_records.withdrawals WHERE record_id = $1`, [r.id]);
          if (withdrawn.some((w) => w.purpose === null)) continue;
          for (const purpose of request.purposes) {
            if (r.decisions[purpose]?.decision !== 'granted' || withdrawn.some((w) => w.purpose === purpose)) continue;
            await this.withdrawConsent.execute({ applicationId: request.applicationId }, r.id, purpose, 'own_records', undefined, true);
            affected += 1;
          }
        }
        return { parts: [], recordIds, authorityIds: [], affected };
      }
      case 'restrict': {
        // Art. 18: the purposes stay stored but are marked restricted on each of the person's records granting them.
        let affected = 0;
        for (const r of records) {
          for (const purpose of request.purposes) {
            if (r.decisions[purpose]?.decision !== 'granted') continue;
            const inserted: unknown[] = await queryRows(
              this.dataSource,
              `INSERT INTO consent_records.processing_restrictions (record_id, purpose, application_id, data_request_id, restricted_at) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (record_id, purpose) DO NOTHING RETURNING record_id`,
              [r.id, purpose, request.applicationId, request.dataRequestId, this.clock.now()],
            );
            affected += inserted.length;
          }
        }
        return { parts: [], recordIds, authorityIds: [], affected };
      }
      default:
        throw consentRecordsError('form_payload_invalid', `Unknown person data action ${request.action.slice(0, 40)}`, { field: 'action' });
    }
  }

  /** Only the newest record of a person and flow speaks for them (older ones are superseded). */
  private async isHead(applicationId: string, recordId: string): Promise<boolean> {
    const rows: unknown[] = await queryRows(this.dataSource, `SELECT 1 FROM consent_records.record_heads WHERE application_id = $1 AND record_id = $2 LIMIT 1`, [applicationId, recordId]);
    return rows.length > 0;
  }

  /** The application's records whose subject email (normalised) or external id has one of the linked digests. */
  private async recordsOf(applicationId: string, subjects: ReadonlyArray<{ applicationId: string; kind: string; valueSha256: string }>): Promise<PersonRecordRow[]> {
    const linked = subjects.filter((s) => s.applicationId === applicationId);
    const emails = linked.filter((s) => s.kind === 'email').map((s) => s.valueSha256);
    const externalIds = linked.filter((s) => s.kind === 'external_id').map((s) => s.valueSha256);
    if (emails.length === 0 && externalIds.length === 0) return [];
    return queryRows(
      this.dataSource,
      `SELECT id, flow_id, flow_version, subject_external_id, subject_email, decisions, collection_channel, captured_at, recorded_at, expires_at, previous_record_id
         FROM consent_records.records
        WHERE application_id = $1
          AND ((subject_email IS NOT NULL AND encode(sha256(convert_to(lower(btrim(subject_email)), 'UTF8')), 'hex') = ANY($2))
            OR (subject_external_id IS NOT NULL AND encode(sha256(convert_to(subject_external_id, 'UTF8')), 'hex') = ANY($3)))
        ORDER BY recorded_at, id`,
      [applicationId, emails, externalIds],
    );
  }
}
