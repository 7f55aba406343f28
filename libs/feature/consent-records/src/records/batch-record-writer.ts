import { Inject, Injectable } from '@nestjs/common';
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { FlowNoticeSchema, sharedMessage, type FlowNotice } from '@svc/contracts';
import { ApplicationFactsReader, type StampedApplicationFacts } from '@svc/bus';
import { PlatformConfig } from '@svc/config';
import { newRegionalId, type IdRegion } from '@svc/ids';
import type { OutboxWriter, PendingEvent } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import type { FlowVersion } from '../flows/flow';
import { CONSENT_RECORDS_OUTBOX } from '../tokens';
import { subjectKeys, type ConsentRecord, type PurposeDecision } from './record';
import { requestDigest, type BatchResult, type RecordDraft } from './record-write';
import {
  RecordsRepository,
  type BatchRead,
  type BatchState,
  type BatchWritten,
  type NewRecord,
  type Statement,
} from './records.repository';

export type { BatchResult } from './record-write';

interface Head {
  record: ConsentRecord;
  /** Orders heads: records of earlier transactions by recorded_at, the batch's own after them in batch order. */
  rank: number;
}

const BATCH_RANK = 1e15;
const sortedEntries = (d: Record<string, PurposeDecision>) => Object.entries(d).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const headKey = (applicationId: string, flowId: string, key: string) => `${applicationId}\u0000${flowId}\u0000${key}`;
const subjectFields = (s: ConsentRecord['subject']) => ({ subjectExternalId: s.external_id ?? '', subjectEmail: s.email ?? '' });

/** The newest of a person's heads (any of their keys): recorded_at, then id, like a single lookup ordered by both. */
function newest(heads: ReadonlyArray<Head | undefined>): Head | undefined {
  let best: Head | undefined;
  for (const h of heads) if (h && (!best || h.rank > best.rank || (h.rank === best.rank && h.record.id > best.record.id))) best = h;
  return best;
}

/** Purposes granted and still standing in `previous` that `decisions` decline (the later-record rule). */
export function movedToDeclined(
  previous: ConsentRecord,
  standing: { whole: boolean; purposes: ReadonlySet<string> } | undefined,
  decisions: Record<string, PurposeDecision>,
): string[] {
  if (standing?.whole) return [];
  return sortedEntries(previous.decisions)
    .filter(([p, d]) => d.decision === 'granted' && !standing?.purposes.has(p) && decisions[p]?.decision === 'declined')
    .map(([p]) => p);
}

/**
 * The wording of the record's flow version as `consent.recorded` carries it: what its receipt
 * freezes as the notice, so the receipts service needs no call back for it. Only the shown fields,
 * not the whole version (this event is on the hot path).
 */
function flowNotice(flow: FlowVersion): FlowNotice {
  const { terms } = flow;
  // One message per flow version's terms, shared by its events and encoded once: a batch of
  // hundreds of records builds and encodes it once.
  let notice = notices.get(terms);
  if (!notice) notices.set(terms, (notice = sharedMessage(create(FlowNoticeSchema, noticeInit(terms)))));
  return notice;
}

const notices = new WeakMap<FlowVersion['terms'], FlowNotice>();

function noticeInit(terms: FlowVersion['terms']) {
  return {
    locale: terms.locale,
    title: terms.presentation.title,
    description: terms.presentation.description,
    policyUrl: terms.policy_url ?? '',
    purposes: terms.purposes.map(({ key, label, description, mechanism, required }) => ({ key, label, description, mechanism, required })),
    consentDuration: terms.consent_duration ?? '',
  };
}

/** consent.recorded as published for a new record. */
function recordedEvent(
  record: ConsentRecord,
  draft: RecordDraft,
  moved: readonly string[],
  application: StampedApplicationFacts | undefined,
): PendingEvent {
  return {
    type: 'consent.recorded',
    init: {
      recordId: record.id,
      flowId: record.flowId,
      flowVersion: record.flowVersion,
      ...subjectFields(record.subject),
      outcomes: sortedEntries(record.decisions).map(([purpose, d]) => ({ purpose, decision: d.decision })),
      collectionChannel: record.channel,
      capturedAt: timestampFromDate(record.capturedAt),
      recordedAt: timestampFromDate(record.recordedAt),
      previousRecordId: record.previousRecordId ?? '',
      withdrawnPurposes: [...moved],
      sendReceipt: draft.sendReceipt,
      renderingEvidenceDigest: draft.renderingEvidenceDigest ?? '',
      collectionPlatform: draft.collectionPlatform ?? '',
      noticeDigest: record.noticeDigest ?? '',
      deliveryMode: draft.deliveryMode ?? '',
      notice: flowNotice(draft.flow),
      // Omitted when decision-gateway could not be asked just now: the receipt then asks itself.
      ...(application ? { application } : {}),
    },
    context: { applicationId: record.applicationId, occurredAt: record.recordedAt, trace: draft.trace },
  };
}

/**
 * The one writer of consent records (Record API group commits, imports, capture commits through
 * RecordWriter): idempotent replays, the later-record rule — a later record for the same person
 * and flow is a new record that withdraws, with channel `newer_record`, the purposes that moved
 * from granted to declined; also between drafts of one batch, in order — head pointers and events.
 * Records are only ever inserted (frozen). Three statements per batch whatever its size (subject
 * locks, one read, one write); a database error fails the whole batch.
 */
@Injectable()
export class BatchRecordWriter {
  constructor(
    private readonly records: RecordsRepository,
    private readonly config: PlatformConfig,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly applications: ApplicationFactsReader,
  ) {}

  /** Writes a batch inside the caller's transaction (capture commits, import batches): three statements. */
  async writeMany(manager: EntityManager, drafts: readonly RecordDraft[], recordedAt: Date): Promise<BatchResult[]> {
    if (drafts.length === 0) return [];
    // Cached, so usually no call; a miss waits at most ApplicationFactsReader.TIMEOUT_MS in the caller's transaction.
    const applications = await this.applications.ofAll(drafts.map((d) => d.applicationId));
    return this.records.batchInTransaction(manager, batchRead(drafts), (state) => this.plan(drafts, state, recordedAt, applications));
  }

  /** Writes a batch in a transaction of its own, committed in two round trips (the Record API's group commit). */
  async commitMany(drafts: readonly RecordDraft[], recordedAt: Date): Promise<BatchResult[]> {
    if (drafts.length === 0) return [];
    // Read before the transaction (cached, at most one call per application and half minute), so no lock waits on it.
    const applications = await this.applications.ofAll(drafts.map((d) => d.applicationId));
    return this.records.batchCommitted(batchRead(drafts), (state) => this.plan(drafts, state, recordedAt, applications));
  }

  /** Applies the rules to a batch given what its locked read found: per-draft results and the one write statement. */
  private plan(
    drafts: readonly RecordDraft[],
    state: BatchState,
    recordedAt: Date,
    applications: ReadonlyMap<string, StampedApplicationFacts>,
  ): { statement: Statement; finish: (rows: BatchWritten[]) => BatchResult[] } {
    const heads = new Map<string, Head>();
    for (const h of state.heads)
      heads.set(headKey(h.record.applicationId, h.record.flowId, h.subjectKey), { record: h.record, rank: h.record.recordedAt.getTime() });
    const withdrawn = new Map<string, { whole: boolean; purposes: Set<string> }>();
    for (const [recordId, w] of state.withdrawn) withdrawn.set(recordId, { whole: w.whole, purposes: new Set(w.purposes) });
    const byKey = new Map(state.known.map((k) => [`${k.record.applicationId}\u0000${k.record.idempotencyKey}`, k]));

    const results: BatchResult[] = [];
    const inserts: NewRecord[] = [];
    const replacedBy = new Map<string, string>();
    const withdrawals: Array<{ recordId: string; purpose: string }> = [];
    const events: PendingEvent[] = [];

    drafts.forEach((draft, index) => {
      const digest = requestDigest(draft);
      const idemKey = `${draft.applicationId}\u0000${draft.idempotencyKey}`;
      const original = draft.idempotencyKey !== null ? byKey.get(idemKey) : undefined;
      if (original) {
        results.push(
          original.digest === digest
            ? { ok: true, outcome: { record: original.record, replayed: true, withdrawn: [] } }
            : {
                ok: false,
                error: consentRecordsError('idempotency_key_reused', 'This idempotency_key was used with a different request body', {
                  idempotency_key: draft.idempotencyKey,
                  record_id: original.record.id,
                }),
              },
        );
        return;
      }
      const keys = subjectKeys(draft.subject).map((k) => headKey(draft.applicationId, draft.flow.flowId, k));
      const previous = newest(keys.map((k) => heads.get(k)))?.record;
      const moved = previous ? movedToDeclined(previous, withdrawn.get(previous.id), draft.decisions) : [];
      const record: ConsentRecord = {
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
        expiresAt: null,
        idempotencyKey: draft.idempotencyKey,
        previousRecordId: previous?.id ?? null,
        withdrawnPurposes: moved,
      };
      inserts.push({ ...record, requestDigest: digest, consentDuration: draft.flow.terms.consent_duration });
      if (draft.idempotencyKey !== null) byKey.set(idemKey, { record, digest });
      const rank = BATCH_RANK + index;
      if (previous) {
        replacedBy.set(previous.id, record.id);
        for (const [k, h] of heads) if (h.record.id === previous.id) heads.set(k, { record, rank });
        const entry = withdrawn.get(previous.id) ?? { whole: false, purposes: new Set<string>() };
        for (const p of moved) entry.purposes.add(p);
        withdrawn.set(previous.id, entry);
        for (const purpose of moved) {
          withdrawals.push({ recordId: previous.id, purpose });
          events.push({
            type: 'consent.purpose_revoked',
            init: {
              recordId: previous.id,
              flowId: previous.flowId,
              flowVersion: previous.flowVersion,
              ...subjectFields(previous.subject),
              purpose,
              channel: 'newer_record',
              revokedAt: timestampFromDate(recordedAt),
            },
            context: { applicationId: draft.applicationId, occurredAt: recordedAt, trace: draft.trace },
          });
        }
      }
      for (const k of keys) heads.set(k, { record, rank });
      events.push(recordedEvent(record, draft, moved, applications.get(draft.applicationId)));
      results.push({ ok: true, outcome: { record, replayed: false, withdrawn: moved } });
    });

    const finalOf = (id: string): string => {
      let current = id;
      for (let next = replacedBy.get(current); next !== undefined; next = replacedBy.get(current)) current = next;
      return current;
    };
    const finalHeads = new Map<string, { applicationId: string; flowId: string; key: string; recordId: string }>();
    for (const rec of inserts) {
      for (const key of subjectKeys(rec.subject))
        finalHeads.set(headKey(rec.applicationId, rec.flowId, key), {
          applicationId: rec.applicationId,
          flowId: rec.flowId,
          key,
          recordId: finalOf(rec.id),
        });
    }
    const statement = this.records.writeStatement({
      records: inserts,
      headMoves: [...replacedBy.keys()].map((id) => [id, finalOf(id)] as const),
      heads: [...finalHeads.values()],
      withdrawals,
      withdrawnAt: recordedAt,
      events: this.outbox.batchInsert(events, 11),
    });
    const finish = (written: BatchWritten[]): BatchResult[] => {
      const expiries = new Map(written.map((w) => [w.id, w.expires_at]));
      for (const r of results) {
        if (!r.ok || r.outcome.replayed) continue;
        r.outcome.record.expiresAt = expiries.get(r.outcome.record.id) ?? null;
        if (replacedBy.has(r.outcome.record.id)) r.outcome.supersededInBatch = true;
      }
      return results;
    };
    return { statement, finish };
  }
}

function batchRead(drafts: readonly RecordDraft[]): BatchRead {
  const triples = drafts.flatMap((d) => subjectKeys(d.subject).map((k) => [d.applicationId, d.flow.flowId, k] as const));
  return {
    lockKeys: [...new Set(triples.map(([a, f, k]) => `consent_records:${a}:${f}:${k}`))].sort(),
    idempotency: drafts.filter((d) => d.idempotencyKey !== null).map((d) => [d.applicationId, d.idempotencyKey!] as const),
    triples,
  };
}
