import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { ActedBy, ConsentRecord, Withdrawal, WithdrawalChannel } from './record';
import type { RecordsRepository } from './records.repository';

/**
 * Withdraws a whole consent record (its subject locked, the record the head, not yet wholly
 * withdrawn: the caller's checks) and publishes `consent.record_revoked` with the purposes that
 * were still granted until now.
 */
export async function withdrawWholeRecord(
  records: RecordsRepository,
  outbox: OutboxWriter,
  manager: EntityManager,
  record: ConsentRecord,
  withdrawals: readonly Withdrawal[],
  channel: WithdrawalChannel,
  withdrawnAt: Date,
  actedBy?: ActedBy,
): Promise<void> {
  const standing = Object.entries(record.decisions)
    .filter(([key, d]) => d.decision === 'granted' && !withdrawals.some((w) => w.purpose === key))
    .map(([key]) => key)
    .sort();
  await records.insertWithdrawal(manager, { recordId: record.id, purpose: null, channel, withdrawnAt, actedBy });
  await outbox.add(
    manager,
    'consent.record_revoked',
    {
      recordId: record.id,
      flowId: record.flowId,
      flowVersion: record.flowVersion,
      subjectExternalId: record.subject.external_id ?? '',
      subjectEmail: record.subject.email ?? '',
      purposes: standing,
      channel,
      revokedAt: timestampFromDate(withdrawnAt),
      actedBy,
    },
    { applicationId: record.applicationId, occurredAt: withdrawnAt },
  );
}
