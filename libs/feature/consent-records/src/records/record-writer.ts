import { Inject, Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { newRegionalId, type IdRegion } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowVersion } from '../flows/flow';
import { CONSENT_RECORDS_OUTBOX } from '../tokens';
import { subjectKeys, type CollectionChannel, type ConsentRecord, type PurposeDecision, type Subject, type Withdrawal } from './record';
import { RecordsRepository } from './records.repository';

/** A validated record to write: decisions already passed the refusals by name. */
export interface RecordDraft {
  applicationId: string;
  flow: FlowVersion;
  subject: Subject;
  decisions: Record<string, PurposeDecision>;
  capturedAt: Date;
  noticeDigest: string | null;
  idempotencyKey: string | null;
  channel: CollectionChannel;
  /** False suppresses the receipt email (capture `suppress_receipt`). */
  sendReceipt: boolean;
}

/** What a write did: `replayed` when the idempotency key returned the original record. */
export interface WriteOutcome {
  record: ConsentRecord;
  replayed: boolean;
  withdrawn: string[];
}

/** Digest of the fields that define a record, so a reused idempotency key with another body is caught. */
export function requestDigest(draft: Pick<RecordDraft, 'flow' | 'subject' | 'decisions' | 'capturedAt' | 'noticeDigest'>): string {
  return sha256Hex(
    canonicalJson({
      flow_id: draft.flow.flowId,
      subject: draft.subject,
      decisions: draft.decisions,
      captured_at: draft.capturedAt.toISOString(),
      notice_digest: draft.noticeDigest,
    }),
  );
}

/**
 * Writes one consent record inside the caller's transaction: idempotency, the later-record rule
 * (a purpose granted in the person's current record and declined in this one is withdrawn with
 * channel `newer_record`), the head pointer, and the outbox events. Used by the Record API,
 * imports (many rows per transaction: group commit) and capture commits.
 */
@Injectable()
export class RecordWriter {
  constructor(
    private readonly records: RecordsRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly config: PlatformConfig,
  ) {}

  async write(manager: EntityManager, draft: RecordDraft, recordedAt: Date): Promise<WriteOutcome> {
    const keys = subjectKeys(draft.subject);
    const digest = requestDigest(draft);
    await this.records.lockSubject(manager, draft.applicationId, draft.flow.flowId, keys);
    if (draft.idempotencyKey !== null) {
      const original = await this.records.findByIdempotencyKey(manager, draft.applicationId, draft.idempotencyKey);
      if (original) {
        if (original.requestDigest !== digest) {
          throw consentRecordsError('idempotency_key_reused', 'This idempotency_key was used with a different request body', { idempotency_key: draft.idempotencyKey, record_id: original.id });
        }
        return { record: original, replayed: true, withdrawn: [] };
      }
    }
    const previous = await this.records.currentHead(manager, draft.applicationId, draft.flow.flowId, keys);
    const withdrawn = previous ? await this.movedToDeclined(manager, previous, draft.decisions) : [];
    const record = await this.records.insert(manager, {
      id: newRegionalId('consent_record', this.config.REGION as IdRegion),
      applicationId: draft.applicationId,
      flowId: draft.flow.flowId,
      flowVersion: draft.flow.version,
      subject: draft.subject,
      decisions: draft.decisions,
      noticeDigest: draft.noticeDigest,
      channel: draft.channel,
      capturedAt: draft.capturedAt,
      recordedAt,
      consentDuration: draft.flow.terms.consent_duration,
      idempotencyKey: draft.idempotencyKey,
      requestDigest: digest,
      previousRecordId: previous?.id ?? null,
      withdrawnPurposes: withdrawn,
    });
    await this.records.setHeads(manager, draft.applicationId, draft.flow.flowId, keys, record.id, previous?.id ?? null);
    const context = { applicationId: draft.applicationId, occurredAt: recordedAt };
    const subjectFields = { subjectExternalId: draft.subject.external_id ?? '', subjectEmail: draft.subject.email ?? '' };
    for (const purpose of withdrawn) {
      await this.records.insertWithdrawal(manager, { recordId: previous!.id, purpose, channel: 'newer_record', withdrawnAt: recordedAt });
      await this.outbox.add(
        manager,
        'consent.purpose_revoked',
        {
          recordId: previous!.id,
          flowId: previous!.flowId,
          flowVersion: previous!.flowVersion,
          subjectExternalId: previous!.subject.external_id ?? '',
          subjectEmail: previous!.subject.email ?? '',
          purpose, channel: 'newer_record', revokedAt: timestampFromDate(recordedAt) },
        context,
      );
    }
    await this.outbox.add(
      manager,
      'consent.recorded',
      {
        recordId: record.id,
        flowId: record.flowId,
        flowVersion: record.flowVersion,
        ...subjectFields,
        outcomes: Object.entries(record.decisions)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([purpose, d]) => ({ purpose, decision: d.decision })),
        collectionChannel: record.channel,
        capturedAt: timestampFromDate(record.capturedAt),
        recordedAt: timestampFromDate(recordedAt),
        previousRecordId: previous?.id ?? '',
        withdrawnPurposes: withdrawn,
        sendReceipt: draft.sendReceipt,
      },
      context,
    );
    return { record, replayed: false, withdrawn };
  }

  /** Purposes granted (and still standing) in `previous` that the new decisions decline. */
  private async movedToDeclined(manager: EntityManager, previous: ConsentRecord, decisions: Record<string, PurposeDecision>): Promise<string[]> {
    const withdrawals: Withdrawal[] = await this.records.withdrawalsOf([previous.id], manager);
    if (withdrawals.some((w) => w.purpose === null)) return [];
    const gone = new Set(withdrawals.map((w) => w.purpose));
    return Object.entries(previous.decisions)
      .filter(([purpose, d]) => d.decision === 'granted' && !gone.has(purpose) && decisions[purpose]?.decision === 'declined')
      .map(([purpose]) => purpose);
  }
}
