import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { sha256Hex } from '@svc/crypto';
import { isIdOf } from '@svc/ids';
import { consentRecordsError } from '../consent-records.errors';
import { recordStatus, type ActedBy, type ConsentRecord } from './record';
import { RecordsRepository } from './records.repository';
import { WithdrawConsent } from './use-cases/withdraw-consent.use-case';

/** SHA-256 hex of each subject reference of a record, as decision-gateway digests a person's links. */
function subjectDigests(record: ConsentRecord): Array<{ kind: 'external_id' | 'email'; sha256: string }> {
  const digests: Array<{ kind: 'external_id' | 'email'; sha256: string }> = [];
  if (record.subject.external_id !== null) digests.push({ kind: 'external_id', sha256: sha256Hex(record.subject.external_id) });
  if (record.subject.email !== null) digests.push({ kind: 'email', sha256: sha256Hex(record.subject.email.trim().toLowerCase()) });
  return digests;
}

/**
 * `consent_records.withdraw_for_person` (decision-gateway's person routes): a person withdraws one
 * of their own records, themself or through a delegate. The record must belong to an application
 * whose link names the record's subject (digests only cross the bus); anything else is
 * `record_not_found`, so a person cannot learn of records that are not theirs. The withdrawal is
 * the person's own (`own_records` channel) and, for a delegate, names who acted for whom under
 * which grant.
 */
@Controller()
export class RecordsRpcHandlers {
  constructor(
    private readonly records: RecordsRepository,
    private readonly withdrawConsent: WithdrawConsent,
    private readonly clock: Clock,
  ) {}

  @RpcHandler('consent_records.withdraw_for_person')
  async withdrawForPerson(
    request: RpcRequest<'consent_records.withdraw_for_person'>,
  ): Promise<RpcReplyInit<'consent_records.withdraw_for_person'>> {
    const notFound = () =>
      consentRecordsError('record_not_found', 'Consent record not found', { record_id: request.recordId.slice(0, 100) });
    if (!isIdOf('consent_record', request.recordId)) throw notFound();
    let owned: ConsentRecord | undefined;
    for (const applicationId of [...new Set(request.subjects.map((s) => s.applicationId))]) {
      const record = await this.records.find(applicationId, request.recordId);
      if (!record) continue;
      const linked = request.subjects.filter((s) => s.applicationId === applicationId);
      if (subjectDigests(record).some((d) => linked.some((s) => s.kind === d.kind && s.valueSha256 === d.sha256))) owned = record;
      break;
    }
    if (!owned) throw notFound();
    const actedBy: ActedBy | undefined =
      request.delegateId === ''
        ? undefined
        : {
            delegateId: request.delegateId,
            principalId: request.principalId,
            delegationGrantId: request.delegationGrantId,
            delegationType: request.delegationType,
          };
    const purpose = request.purpose === '' ? undefined : request.purpose;
    await this.withdrawConsent.execute({ applicationId: owned.applicationId }, owned.id, purpose, 'own_records', actedBy);
    const withdrawal = (await this.records.withdrawalsOf([owned.id])).find((w) => w.purpose === (purpose ?? null));
    return {
      recordId: owned.id,
      applicationId: owned.applicationId,
      purpose: purpose ?? '',
      channel: 'own_records',
      withdrawnAt: (withdrawal?.withdrawnAt ?? this.clock.now()).toISOString(),
    };
  }

  /** The consents in force (head records, not withdrawn or expired) of the subject references linked to a person. */
  @RpcHandler('consent_records.person_consents')
  async personConsents(request: RpcRequest<'consent_records.person_consents'>): Promise<RpcReplyInit<'consent_records.person_consents'>> {
    const records = await this.inForce(request.subjects, request.applicationId);
    return { consents: records.map((r) => ({ recordId: r.id, applicationId: r.applicationId, flowId: r.flowId })) };
  }

  /**
   * Withdraws every consent in force of the person's linked references (of one application, or of
   * all): each exactly as the person's own withdrawal (`own_records`, `consent.withdrawn`), so
   * receipts, webhooks and status lists follow as they do for one.
   */
  @RpcHandler('consent_records.withdraw_person_consents')
  async withdrawPersonConsents(
    request: RpcRequest<'consent_records.withdraw_person_consents'>,
  ): Promise<RpcReplyInit<'consent_records.withdraw_person_consents'>> {
    const withdrawn: ConsentRecord[] = [];
    for (const record of await this.inForce(request.subjects, request.applicationId)) {
      try {
        await this.withdrawConsent.execute({ applicationId: record.applicationId }, record.id, undefined, 'own_records');
        withdrawn.push(record);
      } catch (error) {
        // Withdrawn or superseded meanwhile: nothing left to withdraw for that one.
        if (!isDomainError(error) || (error.kind !== 'conflict' && error.kind !== 'not_found')) throw error;
      }
    }
    return { consents: withdrawn.map((r) => ({ recordId: r.id, applicationId: r.applicationId, flowId: r.flowId })) };
  }

  private async inForce(
    subjects: ReadonlyArray<{ applicationId: string; kind: string; valueSha256: string }>,
    onlyApplicationId: string,
  ): Promise<ConsentRecord[]> {
    const now = this.clock.now();
    const found: ConsentRecord[] = [];
    const applications = [...new Set(subjects.map((s) => s.applicationId))].filter(
      (id) => onlyApplicationId === '' || id === onlyApplicationId,
    );
    for (const applicationId of applications.slice(0, 200)) {
      const linked = subjects.filter((s) => s.applicationId === applicationId);
      const digests = (kind: string) =>
        linked.filter((s) => s.kind === kind && /^[0-9a-f]{64}$/.test(s.valueSha256)).map((s) => s.valueSha256);
      const ids = await this.records.headIdsForSubjectDigests(applicationId, digests('external_id'), digests('email'));
      const withdrawals = await this.records.withdrawalsOf(ids);
      for (const id of ids) {
        const record = await this.records.find(applicationId, id);
        if (
          record &&
          recordStatus(
            record,
            withdrawals.filter((w) => w.recordId === id),
            true,
            now,
          ) === 'active'
        )
          found.push(record);
      }
    }
    return found;
  }
}
