import { Inject, Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import { isIdOf } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import { consentRecordsError } from '../../consent-records.errors';
import { CONSENT_RECORDS_OUTBOX } from '../../tokens';
import { subjectKeys, type ActedBy, type ConsentRecord, type WithdrawalChannel } from '../record';
import { RecordsRepository } from '../records.repository';
import { withdrawWholeRecord } from '../whole-withdrawal';

/**
 * Withdraws a whole consent or one purpose of the person's current record, recording the channel
 * where it was made. The record itself stays frozen: the withdrawal is appended and the status
 * derived. Publishes `consent.purpose_revoked` or `consent.record_revoked` (webhook-dispatcher
 * delivers the latter as the `consent.revoked` webhook). A withdrawal a delegate made for the
 * person carries `actedBy` (delegate, principal, delegation grant) in the row and both events, so
 * the record, its receipt and the audit entry all say "by D acting for P under dlg_…".
 */
@Injectable()
export class WithdrawConsent {
  constructor(
    private readonly records: RecordsRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(
    principal: Pick<Principal, 'applicationId'>,
    recordId: string,
    purpose: string | undefined,
    channel: WithdrawalChannel,
    actedBy?: ActedBy,
    objection = false,
  ): Promise<ConsentRecord> {
    const now = this.clock.now();
    return this.records.transaction(async (manager) => {
      const found = isIdOf('consent_record', recordId) ? await this.records.find(principal.applicationId, recordId, manager) : undefined;
      if (!found) throw consentRecordsError('record_not_found', 'Consent record not found', { record_id: recordId });
      await this.records.lockSubject(manager, principal.applicationId, found.flowId, subjectKeys(found.subject));
      if (!(await this.records.isHead(principal.applicationId, found, manager))) {
        throw consentRecordsError('record_superseded', 'A newer record speaks for this person and flow; withdraw from it', {
          record_id: recordId,
        });
      }
      const withdrawals = await this.records.withdrawalsOf([found.id], manager);
      if (withdrawals.some((w) => w.purpose === null))
        throw consentRecordsError('consent_already_withdrawn', 'This consent was withdrawn already', { record_id: recordId });
      const context = { applicationId: principal.applicationId, occurredAt: now };
      const subject = { subjectExternalId: found.subject.external_id ?? '', subjectEmail: found.subject.email ?? '' };
      if (purpose !== undefined) {
        const decision = found.decisions[purpose];
        if (!decision) throw consentRecordsError('purpose_not_in_record', `purpose "${purpose}" is not part of this record`, { purpose });
        if (decision.decision !== 'granted')
          throw consentRecordsError('purpose_not_granted', `purpose "${purpose}" was declined in this record`, { purpose });
        if (withdrawals.some((w) => w.purpose === purpose))
          throw consentRecordsError('purpose_already_withdrawn', `purpose "${purpose}" was withdrawn already`, { purpose });
        await this.records.insertWithdrawal(manager, { recordId: found.id, purpose, channel, withdrawnAt: now, actedBy });
        await this.outbox.add(
          manager,
          'consent.purpose_revoked',
          {
            recordId: found.id,
            flowId: found.flowId,
            flowVersion: found.flowVersion,
            ...subject,
            purpose,
            channel,
            revokedAt: timestampFromDate(now),
            actedBy,
            objection,
          },
          context,
        );
        return found;
      }
      await withdrawWholeRecord(this.records, this.outbox, manager, found, withdrawals, channel, now, actedBy);
      return found;
    });
  }
}
