import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock } from '@svc/config';
import { consentRecordsError } from '../consent-records.errors';
import { PersonDataRepository } from './person-data.repository';
import { RecordsRepository } from './records.repository';
import { WithdrawConsent } from './use-cases/withdraw-consent.use-case';

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
    private readonly store: PersonDataRepository,
    private readonly records: RecordsRepository,
    private readonly withdrawConsent: WithdrawConsent,
    private readonly clock: Clock,
  ) {}

  @RpcHandler('consent_records.person_data')
  async personData(request: RpcRequest<'consent_records.person_data'>): Promise<RpcReplyInit<'consent_records.person_data'>> {
    const linked = request.subjects.filter((s) => s.applicationId === request.applicationId);
    const digests = (kind: string) => linked.filter((s) => s.kind === kind).map((s) => s.valueSha256);
    const records = await this.store.recordsForSubjectDigests(request.applicationId, digests('external_id'), digests('email'));
    const recordIds = records.map((r) => r.id);
    switch (request.action) {
      case 'export': {
        const withdrawals = await this.records.withdrawalsOf(recordIds);
        const restrictions = await this.store.restrictionsOf(recordIds);
        const items = records.map((r) => ({
          record_id: r.id,
          flow_id: r.flow_id,
          flow_version: r.flow_version,
          subject: {
            ...(r.subject_email !== null ? { email: r.subject_email } : {}),
            ...(r.subject_external_id !== null ? { external_id: r.subject_external_id } : {}),
          },
          decisions: Object.fromEntries(Object.entries(r.decisions).map(([purpose, d]) => [purpose, d.decision])),
          collection_channel: r.collection_channel,
          captured_at: r.captured_at.toISOString(),
          recorded_at: r.recorded_at.toISOString(),
          expires_at: r.expires_at?.toISOString() ?? null,
          previous_record_id: r.previous_record_id,
          withdrawals: withdrawals
            .filter((w) => w.recordId === r.id)
            .map((w) => ({ purpose: w.purpose, channel: w.channel, withdrawn_at: w.withdrawnAt.toISOString() })),
          restrictions: restrictions
            .filter((x) => x.record_id === r.id)
            .map((x) => ({ purpose: x.purpose, restricted_at: x.restricted_at.toISOString() })),
        }));
        return {
          parts: [{ name: 'consent-records/consent_records', itemsJson: JSON.stringify(items) }],
          recordIds,
          authorityIds: [],
          affected: 0,
        };
      }
      case 'erase': {
        await this.store.erase(recordIds);
        return { parts: [], recordIds, authorityIds: [], affected: recordIds.length };
      }
      case 'object': {
        let affected = 0;
        for (const r of records) {
          if (!(await this.store.isHead(request.applicationId, r.id))) continue;
          const withdrawn = await this.records.withdrawalsOf([r.id]);
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
            if (await this.store.restrict(r.id, purpose, request.applicationId, request.dataRequestId, this.clock.now())) affected += 1;
          }
        }
        return { parts: [], recordIds, authorityIds: [], affected };
      }
      default:
        throw consentRecordsError('form_payload_invalid', `Unknown person data action ${request.action.slice(0, 40)}`, { field: 'action' });
    }
  }
}
