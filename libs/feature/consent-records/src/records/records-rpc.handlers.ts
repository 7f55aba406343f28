import { Controller } from '@nestjs/common';
import { RpcHandler, type RpcReplyInit, type RpcRequest } from '@svc/bus';
import { Clock } from '@svc/config';
import { sha256Hex } from '@svc/crypto';
import { isIdOf } from '@svc/ids';
import { consentRecordsError } from '../consent-records.errors';
import type { ActedBy, ConsentRecord } from './record';
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
  async withdrawForPerson(request: RpcRequest<'consent_records.withdraw_for_person'>): Promise<RpcReplyInit<'consent_records.withdraw_for_person'>> {
    const notFound = () => consentRecordsError('record_not_found', 'Consent record not found', { record_id: request.recordId.slice(0, 100) });
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
      request.delegateId === '' ? undefined : { delegateId: request.delegateId, principalId: request.principalId, delegationGrantId: request.delegationGrantId, delegationType: request.delegationType };
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
}
