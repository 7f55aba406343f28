import { Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PlatformConfig } from '@svc/config';
import { DomainError } from '@svc/errors';
import { newRegionalId, type IdRegion } from '@svc/ids';
import type { EntityManager } from 'typeorm';
import { consentRecordsError } from '../consent-records.errors';
import { addEvents, type BatchEvent } from './batch-outbox';
import { subjectKeys, type ConsentRecord, type PurposeDecision } from './record';
import { requestDigest, type RecordDraft, type WriteOutcome } from './record-writer';
import { RecordsRepository } from './records.repository';

/** Per-draft result of a batch: the write's outcome or the domain refusal of that draft alone. */
export type BatchResult = { ok: true; outcome: WriteOutcome } | { ok: false; error: DomainError };

interface Head {
  record: ConsentRecord;
  /** Orders heads: records of earlier transactions by recorded_at, the batch's own after them in batch order. */
  rank: number;
}

const BATCH_RANK = 1e15;
const sortedEntries = (d: Record<string, PurposeDecision>) => Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1));

/**
 * Group commit: writes many drafts with a fixed number of statements (locks, idempotency lookup,
 * heads, withdrawals, one insert per table, one outbox insert) instead of ~10 per record, with
 * the same rules as RecordWriter — idempotent replays, the later-record withdrawal rule (also
 * between drafts of the same batch, in order), head pointers, events. Runs in the caller's
 * transaction; a database error fails the whole batch (callers retry row by row).
 */
@Injectable()
export class BatchRecordWriter {
  constructor(
    private readonly records: RecordsRepository,
    private readonly config: PlatformConfig,
  ) {}

  async writeMany(manager: EntityManager, drafts: readonly RecordDraft[], recordedAt: Date): Promise<BatchResult[]> {
    if (drafts.length === 0) return [];
    const headKey = (d: { applicationId: string; flowId: string }, key: string) => `${d.applicationId}\u0000${d.flowId}\u0000${key}`;
    const lockKeys = [...new Set(drafts.flatMap((d) => subjectKeys(d.subject).map((k) => `consent_records:${d.applicationId}:${d.flow.flowId}:${k}`)))].sort();
    await manager.query(`SELECT count(pg_advisory_xact_lock(hashtextextended(k, 0))) FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) s`, [lockKeys]);

    const idem = drafts.filter((d) => d.idempotencyKey !== null);
    const known = await this.records.byIdempotencyKeys(manager, idem.map((d) => d.applicationId), idem.map((d) => d.idempotencyKey!));
    const triples = drafts.flatMap((d) => subjectKeys(d.subject).map((k) => [d.applicationId, d.flow.flowId, k] as const));
    const heads = new Map<string, Head>();
    for (const h of await this.records.headsFor(manager, triples)) heads.set(headKey(h.record, h.subjectKey), { record: h.record, rank: h.record.recordedAt.getTime() });
    const withdrawn = new Map<string, { whole: boolean; purposes: Set<string> }>();
    for (const w of await this.records.withdrawalsOf([...new Set([...heads.values()].map((h) => h.record.id))], manager)) {
      const entry = withdrawn.get(w.recordId) ?? { whole: false, purposes: new Set<string>() };
      if (w.purpose === null) entry.whole = true;
      else entry.purposes.add(w.purpose);
      withdrawn.set(w.recordId, entry);
    }

    const results: BatchResult[] = [];
    const inserts: Array<ConsentRecord & { digest: string; consentDuration: string | null }> = [];
    const replacedBy = new Map<string, string>();
    const withdrawals: Array<{ recordId: string; purpose: string }> = [];
    const events: BatchEvent[] = [];
    const byKey = new Map<string, { record: ConsentRecord; digest: string }>(known.map((k) => [`${k.record.applicationId}\u0000${k.record.idempotencyKey}`, k]));

    drafts.forEach((draft, index) => {
      const digest = requestDigest(draft);
      if (draft.idempotencyKey !== null) {
        const original = byKey.get(`${draft.applicationId}\u0000${draft.idempotencyKey}`);
        if (original) {
          results.push(
            original.digest === digest
              ? { ok: true, outcome: { record: original.record, replayed: true, withdrawn: [] } }
              : { ok: false, error: consentRecordsError('idempotency_key_reused', 'This idempotency_key was used with a different request body', { idempotency_key: draft.idempotencyKey, record_id: original.record.id }) },
          );
          return;
        }
      }
      const keys = subjectKeys(draft.subject).map((k) => headKey({ applicationId: draft.applicationId, flowId: draft.flow.flowId }, k));
      const previous = keys.map((k) => heads.get(k)).reduce<Head | undefined>((best, h) => (h && (!best || h.rank > best.rank) ? h : best), undefined)?.record;
      const state = previous ? withdrawn.get(previous.id) : undefined;
      const moved =
        previous && !state?.whole
          ? sortedEntries(previous.decisions)
              .filter(([p, d]) => d.decision === 'granted' && !state?.purposes.has(p) && draft.decisions[p]?.decision === 'declined')
              .map(([p]) => p)
          : [];
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
      inserts.push({ ...record, digest, consentDuration: draft.flow.terms.consent_duration });
      if (draft.idempotencyKey !== null) byKey.set(`${draft.applicationId}\u0000${draft.idempotencyKey}`, { record, digest });
      if (previous) {
        replacedBy.set(previous.id, record.id);
        for (const [k, h] of heads) if (h.record.id === previous.id) heads.set(k, { record, rank: BATCH_RANK + index });
        const entry = withdrawn.get(previous.id) ?? { whole: false, purposes: new Set<string>() };
        for (const p of moved) entry.purposes.add(p);
        withdrawn.set(previous.id, entry);
      }
      for (const k of keys) heads.set(k, { record, rank: BATCH_RANK + index });
      const subjectFields = (s: ConsentRecord['subject']) => ({ subjectExternalId: s.external_id ?? '', subjectEmail: s.email ?? '' });
      for (const purpose of moved) {
        withdrawals.push({ recordId: previous!.id, purpose });
        events.push({
          type: 'consent.purpose_revoked',
          init: { recordId: previous!.id, flowId: previous!.flowId, flowVersion: previous!.flowVersion, ...subjectFields(previous!.subject), purpose, channel: 'newer_record', revokedAt: timestampFromDate(recordedAt) },
          applicationId: draft.applicationId,
          occurredAt: recordedAt,
        });
      }
      events.push({
        type: 'consent.recorded',
        init: {
          recordId: record.id,
          flowId: record.flowId,
          flowVersion: record.flowVersion,
          ...subjectFields(record.subject),
          outcomes: sortedEntries(record.decisions).map(([purpose, d]) => ({ purpose, decision: d.decision })),
          collectionChannel: record.channel,
          capturedAt: timestampFromDate(record.capturedAt),
          recordedAt: timestampFromDate(recordedAt),
          previousRecordId: previous?.id ?? '',
          withdrawnPurposes: moved,
          sendReceipt: draft.sendReceipt,
        },
        applicationId: draft.applicationId,
        occurredAt: recordedAt,
      });
      results.push({ ok: true, outcome: { record, replayed: false, withdrawn: moved } });
    });

    const expiries = await this.records.insertMany(manager, inserts);
    for (const r of results) if (r.ok && !r.outcome.replayed) r.outcome.record.expiresAt = expiries.get(r.outcome.record.id) ?? null;
    const finalOf = (id: string): string => {
      let current = id;
      for (let next = replacedBy.get(current); next !== undefined; next = replacedBy.get(current)) current = next;
      return current;
    };
    await this.records.redirectHeads(manager, [...replacedBy.keys()].map((id) => [id, finalOf(id)] as const));
    const finalHeads = new Map<string, { applicationId: string; flowId: string; key: string; recordId: string }>();
    for (const r of results) {
      if (!r.ok || r.outcome.replayed) continue;
      const rec = r.outcome.record;
      for (const key of subjectKeys(rec.subject)) finalHeads.set(headKey(rec, key), { applicationId: rec.applicationId, flowId: rec.flowId, key, recordId: finalOf(rec.id) });
    }
    await this.records.upsertHeads(manager, [...finalHeads.values()]);
    await this.records.insertWithdrawals(manager, withdrawals, 'newer_record', recordedAt);
    await addEvents(manager, this.config.REGION, events);
    return results;
  }
}
