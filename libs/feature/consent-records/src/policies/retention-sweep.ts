import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource, type EntityManager } from 'typeorm';
import { ConsentRecordsConfig } from '../consent-records.config';
import type { PurposeDecision } from '../records/record';
import { subjectKeys } from '../records/record';
import { RecordsRepository } from '../records/records.repository';
import { CONSENT_RECORDS_OUTBOX } from '../tokens';

/** Records examined per statement; a sweep repeats until a statement finds fewer. */
const SWEEP_BATCH = 200;
/** Upper bound of statements in one sweep, so one sweep never holds the worker for long. */
const MAX_BATCHES_PER_SWEEP = 50;

/** Why a consent ended. */
export type ExpiryReason = 'consent_duration' | 'retention_policy' | 'deal_term';

/** One consent a sweep ended. */
export interface SweptConsent {
  recordId: string;
  applicationId: string;
  flowId: string;
  expiredAt: Date;
  reason: ExpiryReason;
  policyId: string | null;
  policyVersion: number | null;
  /** Purposes that were granted until the expiry. */
  purposes: string[];
}

/** What one sweep did: when it ran and which consents it ended. */
export interface RetentionSweepReport {
  sweptAt: Date;
  expired: SweptConsent[];
}

interface CandidateRow {
  id: string;
  application_id: string;
  flow_id: string;
  flow_version: number;
  subject_external_id: string | null;
  subject_email: string | null;
  decisions: Record<string, PurposeDecision>;
  expires_at: Date | null;
  policy_id: string | null;
  policy_version: number | null;
  policy_ends_at: Date | null;
  deal_ends_at: Date | null;
}

/**
 * Records whose end has come: the record still speaks for its person (a head), is not wholly
 * withdrawn, was not ended before, and either its flow's term (`expires_at`, captured_at +
 * consent_duration) or the shortest retention of an active data policy attached to its flow,
 * for a purpose it granted, or the term of the accepted data deal the record is, has run out.
 * `LEAST` ignores the NULLs of ends that do not apply.
 */
const CANDIDATES = `
  SELECT r.id, r.application_id, r.flow_id, r.flow_version, r.subject_external_id, r.subject_email, r.decisions, r.expires_at,
         pol.policy_id, pol.policy_version, pol.ends_at AS policy_ends_at, deal.ends_at AS deal_ends_at
  FROM consent_records.records r
  LEFT JOIN LATERAL (
    SELECT v.policy_id, v.version AS policy_version, r.captured_at + (rule ->> 'retention')::interval AS ends_at
    FROM consent_records.policy_versions v
    JOIN consent_records.policies p ON p.id = v.policy_id AND p.application_id = r.application_id
    CROSS JOIN LATERAL jsonb_array_elements(v.rules) AS rule
    WHERE v.status = 'active' AND r.flow_id = ANY (v.flow_ids) AND r.decisions -> (rule ->> 'purpose') ->> 'decision' = 'granted'
    ORDER BY 3, 1
    LIMIT 1
  ) pol ON true
  LEFT JOIN LATERAL (
    SELECT d.accepted_at + (d.terms ->> 'duration')::interval AS ends_at FROM consent_records.data_offers d WHERE d.record_id = r.id
  ) deal ON true
  WHERE ($2::text IS NULL OR r.application_id = $2)
    AND LEAST(r.expires_at, pol.ends_at, deal.ends_at) <= $1
    AND EXISTS (SELECT 1 FROM consent_records.record_heads h WHERE h.record_id = r.id)
    AND NOT EXISTS (SELECT 1 FROM consent_records.record_expiries e WHERE e.record_id = r.id)
    AND NOT EXISTS (SELECT 1 FROM consent_records.withdrawals w WHERE w.record_id = r.id AND w.purpose IS NULL)
  ORDER BY r.id
  LIMIT $3`;

/**
 * The retention sweep (Protect, data policies): ends every consent whose term has run out, at
 * the time of the injected clock. For each one, in one transaction under the person's subject
 * lock (the lock withdrawals take, so a withdrawal and an expiry never both win): the expiry is
 * appended to `record_expiries` (once per record: a second sweeper in another process finds the
 * row and emits nothing) and `consent.expired` goes to the outbox, which the receipts append as
 * the `consent expired` event state (channel `end_of_term`), webhook-dispatcher delivers as the
 * `consent.expired` webhook and audit-chain records. The record itself stays frozen; its status
 * is derived (`expired`). A record whose granted purposes were all withdrawn one by one is marked
 * ended without an event: nothing was still consented.
 *
 * Runs in the background every `RETENTION_SWEEP_INTERVAL_MS` (0: never) and on demand.
 */
@Injectable()
export class RetentionSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private running?: Promise<RetentionSweepReport>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly records: RecordsRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: ConsentRecordsConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** One sweep at the clock's time; `applicationId` limits it to one application's records. */
  async execute(applicationId?: string): Promise<RetentionSweepReport> {
    const sweptAt = this.clock.now();
    const expired: SweptConsent[] = [];
    for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
      const rows: CandidateRow[] = await this.dataSource.query(CANDIDATES, [sweptAt, applicationId ?? null, SWEEP_BATCH]);
      for (const row of rows) {
        const swept = await this.records.transaction((manager) => this.end(manager, row, sweptAt));
        if (swept) expired.push(swept);
      }
      if (rows.length < SWEEP_BATCH) break;
    }
    return { sweptAt, expired };
  }

  onApplicationBootstrap(): void {
    const interval = this.config.RETENTION_SWEEP_INTERVAL_MS;
    if (interval === 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.execute()
        .then((report) => {
          if (report.expired.length > 0) this.logger.info({ expired: report.expired.length }, 'retention sweep ended consents');
          return report;
        })
        .catch((error: unknown) => {
          this.logger.error({ err: error }, 'retention sweep failed');
          return { sweptAt: this.clock.now(), expired: [] };
        })
        .finally(() => {
          this.running = undefined;
        });
    }, interval);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private async end(manager: EntityManager, row: CandidateRow, sweptAt: Date): Promise<SweptConsent | undefined> {
    const subject = { email: row.subject_email, external_id: row.subject_external_id };
    await this.records.lockSubject(manager, row.application_id, row.flow_id, subjectKeys(subject));
    const withdrawals = await this.records.withdrawalsOf([row.id], manager);
    if (withdrawals.some((w) => w.purpose === null)) return undefined;
    // The earliest end applies; on a tie the flow's term, then the deal's, names the reason.
    const ends: Array<[ExpiryReason, Date | null]> = [
      ['consent_duration', row.expires_at],
      ['deal_term', row.deal_ends_at],
      ['retention_policy', row.policy_ends_at],
    ];
    const [reason, expiredAt] = ends
      .filter((e): e is [ExpiryReason, Date] => e[1] !== null)
      .reduce((earliest, e) => (e[1].getTime() < earliest[1].getTime() ? e : earliest));
    const byPolicy = reason === 'retention_policy';
    const purposes = Object.entries(row.decisions)
      .filter(([key, d]) => d.decision === 'granted' && !withdrawals.some((w) => w.purpose === key))
      .map(([key]) => key)
      .sort();
    const inserted: unknown[] = await manager.query(
      `INSERT INTO consent_records.record_expiries (record_id, expired_at, swept_at, reason, policy_id, policy_version, purposes)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (record_id) DO NOTHING RETURNING record_id`,
      [row.id, expiredAt, sweptAt, reason, byPolicy ? row.policy_id : null, byPolicy ? row.policy_version : null, purposes],
    );
    if (inserted.length === 0 || purposes.length === 0) return undefined;
    await this.outbox.add(
      manager,
      'consent.expired',
      {
        recordId: row.id,
        flowId: row.flow_id,
        flowVersion: row.flow_version,
        subjectExternalId: row.subject_external_id ?? '',
        subjectEmail: row.subject_email ?? '',
        purposes,
        reason,
        policyId: byPolicy ? row.policy_id! : '',
        policyVersion: byPolicy ? row.policy_version! : 0,
        expiredAt: timestampFromDate(expiredAt),
      },
      { applicationId: row.application_id, occurredAt: sweptAt },
    );
    return {
      recordId: row.id,
      applicationId: row.application_id,
      flowId: row.flow_id,
      expiredAt,
      reason,
      policyId: byPolicy ? row.policy_id : null,
      policyVersion: byPolicy ? row.policy_version : null,
      purposes,
    };
  }
}
