import { COLLECTION_CHANNELS, EVENT_CHANNELS, type CollectionChannel, type EventChannel } from '@svc/contracts';
import type { ConsentRecordResponse } from './record.response';

export { COLLECTION_CHANNELS, type CollectionChannel };

/** Where a withdrawal was made: the receipt's `event_channel` vocabulary. */
export const WITHDRAWAL_CHANNELS = EVENT_CHANNELS;
export type WithdrawalChannel = EventChannel;

/** Channels a caller may name on the withdrawal endpoint; the others are set by the platform. */
export const API_WITHDRAWAL_CHANNELS = [
  'own_records',
  'email_link',
  'receipt_link',
  'mailing_tool',
  'organisation',
  'unspecified',
] as const satisfies readonly WithdrawalChannel[];

export type Decision = 'granted' | 'declined';

/** One purpose's decision as captured: `default_checked` / `mandatory` describe the control shown. */
export interface PurposeDecision {
  decision: Decision;
  default_checked: boolean;
  mandatory: boolean;
}

/** The person a record is about, as the organisation refers to them. */
export interface Subject {
  email: string | null;
  external_id: string | null;
}

/** A stored consent record: frozen once written. */
export interface ConsentRecord {
  id: string;
  applicationId: string;
  flowId: string;
  flowVersion: number;
  subject: Subject;
  decisions: Record<string, PurposeDecision>;
  noticeDigest: string | null;
  channel: CollectionChannel;
  capturedAt: Date;
  recordedAt: Date;
  /** captured_at + the flow's consent_duration; null when open-ended. */
  expiresAt: Date | null;
  idempotencyKey: string | null;
  previousRecordId: string | null;
  /** Purposes this record withdrew from its predecessor (granted there, declined here). */
  withdrawnPurposes: string[];
}

/** A delegate (`usr_…`) who acted for the record's principal (`usr_…`) under a delegation grant (`dlg_…`). */
export interface ActedBy {
  delegateId: string;
  principalId: string;
  delegationGrantId: string;
  /** guardian, caregiver, power_of_attorney, it_admin, peer. */
  delegationType: string;
}

/** A withdrawal appended to a record: `purpose` null withdraws the whole consent. */
export interface Withdrawal {
  recordId: string;
  purpose: string | null;
  channel: WithdrawalChannel;
  withdrawnAt: Date;
  /** Set when a delegate withdrew for the person ("by D acting for P under dlg_…"). */
  actedBy?: ActedBy;
}

/** The wire shape of a withdrawal's `acted_by`. */
export function actedByView(actedBy: ActedBy): {
  delegate_id: string;
  principal_id: string;
  delegation_grant_id: string;
  delegation_type: string;
} {
  return {
    delegate_id: actedBy.delegateId,
    principal_id: actedBy.principalId,
    delegation_grant_id: actedBy.delegationGrantId,
    delegation_type: actedBy.delegationType,
  };
}

/**
 * Lookup keys of a person: a record is matched to earlier ones by external id or by email
 * (case-insensitive), whichever the organisation supplied.
 */
export function subjectKeys(subject: Subject): string[] {
  const keys: string[] = [];
  if (subject.external_id !== null) keys.push(`external_id:${subject.external_id}`);
  if (subject.email !== null) keys.push(`email:${subject.email.toLowerCase()}`);
  return keys;
}

/** Status of one purpose of a record at `now`. */
export type PurposeStatus = 'granted' | 'declined' | 'withdrawn' | 'expired';

/** Per-purpose status of a record given its withdrawals and the time. */
export function purposeStatuses(
  record: ConsentRecord,
  withdrawals: readonly Withdrawal[],
  now: Date,
): Array<{
  purpose: string;
  decision: Decision;
  status: PurposeStatus;
  withdrawn_at: string | null;
  withdrawal_channel: string | null;
  withdrawal_acted_by?: ReturnType<typeof actedByView>;
}> {
  const whole = withdrawals.find((w) => w.purpose === null);
  // jsonb does not keep key order; purposes are listed by key so answers are stable.
  return Object.entries(record.decisions)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([purpose, d]) => {
      const own = withdrawals.find((w) => w.purpose === purpose) ?? (d.decision === 'granted' ? whole : undefined);
      let status: PurposeStatus = d.decision;
      if (d.decision === 'granted') {
        if (own) status = 'withdrawn';
        else if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) status = 'expired';
      }
      return {
        purpose,
        decision: d.decision,
        status,
        withdrawn_at: own?.withdrawnAt.toISOString() ?? null,
        withdrawal_channel: own?.channel ?? null,
        // Only a delegate's withdrawal names who acted, for whom and under which grant.
        ...(own?.actedBy ? { withdrawal_acted_by: actedByView(own.actedBy) } : {}),
      };
    });
}

/** Overall status of a record: superseded by a newer one, withdrawn, expired, or active. */
export function recordStatus(
  record: ConsentRecord,
  withdrawals: readonly Withdrawal[],
  isHead: boolean,
  now: Date,
): 'active' | 'withdrawn' | 'expired' | 'superseded' {
  if (!isHead) return 'superseded';
  if (withdrawals.some((w) => w.purpose === null)) return 'withdrawn';
  if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** Evidence kept beside a record: for a decision session's record, how the server bound the person. */
export interface RecordEvidence {
  principal_binding: string;
}

/** Wire shape `consent_record`; `evidence` is null for records that have none. */
export function recordView(
  record: ConsentRecord,
  withdrawals: readonly Withdrawal[],
  isHead: boolean,
  now: Date,
  evidence: RecordEvidence | null = null,
): Record<string, unknown> {
  return {
    id: record.id,
    object: 'consent_record',
    application_id: record.applicationId,
    flow_id: record.flowId,
    flow_version: record.flowVersion,
    status: recordStatus(record, withdrawals, isHead, now),
    subject: record.subject,
    purposes: purposeStatuses(record, withdrawals, now),
    decisions: record.decisions,
    notice_digest: record.noticeDigest,
    collection_channel: record.channel,
    captured_at: record.capturedAt.toISOString(),
    recorded_at: record.recordedAt.toISOString(),
    expires_at: record.expiresAt?.toISOString() ?? null,
    idempotency_key: record.idempotencyKey,
    previous_record_id: record.previousRecordId,
    withdrawn_purposes: record.withdrawnPurposes,
    evidence,
  } satisfies ConsentRecordResponse;
}
