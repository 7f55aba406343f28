import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { subjectKeys, type ConsentRecord, type WithdrawalChannel } from '../records/record';
import type { RecordsRepository } from '../records/records.repository';
import { withdrawWholeRecord } from '../records/whole-withdrawal';

/** What withdrawing a session's record did; anything but `withdrawn` left the records as they were. */
export type SessionWithdrawalOutcome = 'withdrawn' | 'superseded' | 'already_withdrawn';

/** The record written for a session (by its idempotency key), if any. */
export async function sessionRecord(
  records: RecordsRepository,
  manager: EntityManager,
  applicationId: string,
  idempotencyKey: string,
): Promise<ConsentRecord | undefined> {
  const rows: Array<{ id: string }> = await manager.query(
    `SELECT id FROM consent_records.records WHERE application_id = $1 AND idempotency_key = $2`,
    [applicationId, idempotencyKey],
  );
  return rows[0] ? records.find(applicationId, rows[0].id, manager) : undefined;
}

/**
 * Withdraws a session's record wholly, as WithdrawConsent does, for the session's own
 * `consent.revoked`. A record that a later one replaced no longer speaks for the person and is
 * left as it is (later-record rule), and a repeated revocation changes nothing: neither is an error
 * here, unlike on the API.
 */
export async function withdrawSessionRecord(
  records: RecordsRepository,
  outbox: OutboxWriter,
  manager: EntityManager,
  record: ConsentRecord,
  channel: WithdrawalChannel,
  withdrawnAt: Date,
): Promise<SessionWithdrawalOutcome> {
  await records.lockSubject(manager, record.applicationId, record.flowId, subjectKeys(record.subject));
  if (!(await records.isHead(record.applicationId, record, manager))) return 'superseded';
  const withdrawals = await records.withdrawalsOf([record.id], manager);
  if (withdrawals.some((w) => w.purpose === null)) return 'already_withdrawn';
  await withdrawWholeRecord(records, outbox, manager, record, withdrawals, channel, withdrawnAt);
  return 'withdrawn';
}
