import { Inject, Injectable } from '@nestjs/common';
import type { DeliveredEvent } from '@svc/bus';
import { isDomainError } from '@svc/errors';
import { commitIsolatingFailures, markProcessed, processOnce, processedAmong, wasProcessed } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource, type EntityManager } from 'typeorm';
import { RECEIPTS_SCHEMA } from '../schema';
import { UnreceiptableRecord } from './consent-record-input';

/**
 * Receipts are the system of record's evidence: an event whose failure is transient is redelivered
 * (with the bus's capped backoff) until it succeeds, never dropped after a fixed count.
 */
export const RECEIPT_INTAKE_DELIVERY = { maxDeliver: -1 } as const;

/**
 * Whether a failure may heal on redelivery: the receipt a transition belongs to is not frozen yet
 * (its own event is still on the way or being retried), an upstream RPC did not answer, or
 * anything unexpected (a database outage). Refusals of the input itself never heal.
 */
export function isTransient(error: unknown): boolean {
  if (error instanceof UnreceiptableRecord) return false;
  if (!isDomainError(error)) return true;
  return error.code === 'receipt_not_found' || error.kind === 'unavailable';
}

/**
 * One event's part of a batch ({@link ReceiptIntake.onceEach}): its receipt work, or why it cannot
 * become a receipt (logged, marked processed).
 */
export type IntakeJob =
  { event: DeliveredEvent; work: (manager: EntityManager) => Promise<boolean> } | { event: DeliveredEvent; refused: unknown };

/**
 * The inbox discipline shared by the receipt intake consumers: an event's receipt work and its
 * inbox row commit in one transaction, so a crash before the commit redelivers the event and a
 * redelivery after it changes nothing. Transient failures roll back and are redelivered; a refused
 * input is logged and marked processed (retrying could not make it truthful).
 */
@Injectable()
export class ReceiptIntake {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** True when `consumer` already processed the event (saves upstream calls on redelivery). */
  seen(consumer: string, event: DeliveredEvent): Promise<boolean> {
    return wasProcessed(this.dataSource, RECEIPTS_SCHEMA, consumer, event.id);
  }

  /** The events among `events` that `consumer` already processed (one statement for the batch). */
  seenAmong(consumer: string, events: readonly DeliveredEvent[]): Promise<Set<string>> {
    return processedAmong(
      this.dataSource,
      RECEIPTS_SCHEMA,
      consumer,
      events.map((event) => event.id),
    );
  }

  /**
   * {@link once} for a batch: every job's work and inbox row commit in ONE transaction (a group
   * commit), and each job's outcome comes back in order. When that transaction fails (a transient
   * failure of one job's work, say), each job is committed alone, so only the job that cannot be
   * committed is redelivered: one event never holds back another application's receipts.
   */
  async onceEach(consumer: string, jobs: readonly IntakeJob[]): Promise<Array<PromiseSettledResult<boolean>>> {
    const outcomes = await commitIsolatingFailures(jobs, (batch) =>
      this.dataSource.transaction(async (manager) => {
        const fresh = new Set(
          await markProcessed(
            manager,
            RECEIPTS_SCHEMA,
            consumer,
            batch.map((job) => job.event.id),
          ),
        );
        const changed: Array<{ ok: true; value: boolean }> = [];
        for (const job of batch) changed.push({ ok: true, value: fresh.has(job.event.id) && (await this.apply(consumer, job, manager)) });
        return changed;
      }),
    );
    return outcomes.map((outcome) =>
      outcome.ok ? { status: 'fulfilled', value: outcome.value } : { status: 'rejected', reason: outcome.error },
    );
  }

  /** A job's work inside the batch's transaction; a refusal is logged and changes nothing. Transient failures are rethrown. */
  private async apply(consumer: string, job: IntakeJob, manager: EntityManager): Promise<boolean> {
    if ('refused' in job) {
      this.refused(consumer, job.event, job.refused);
      return false;
    }
    try {
      return await job.work(manager);
    } catch (error) {
      if (isTransient(error)) throw error;
      this.refused(consumer, job.event, error);
      return false;
    }
  }

  /**
   * Runs `work` once per (consumer, event). Returns true when it changed something, false for a
   * redelivery or a refused input. Rethrows transient failures so the event is redelivered.
   */
  async once(consumer: string, event: DeliveredEvent, work: (manager: EntityManager) => Promise<boolean>): Promise<boolean> {
    let changed = false;
    await processOnce(this.dataSource, RECEIPTS_SCHEMA, consumer, event.id, async (manager) => {
      try {
        changed = await work(manager);
      } catch (error) {
        if (isTransient(error)) throw error;
        this.refused(consumer, event, error);
      }
    });
    return changed;
  }

  /** Marks an event that cannot become a receipt as processed, after logging why. */
  async skip(consumer: string, event: DeliveredEvent, error: unknown): Promise<false> {
    this.refused(consumer, event, error);
    await processOnce(this.dataSource, RECEIPTS_SCHEMA, consumer, event.id, async () => undefined);
    return false;
  }

  private refused(consumer: string, event: DeliveredEvent, error: unknown): void {
    const reason = isDomainError(error) ? error.code : error instanceof Error ? error.message : String(error);
    this.logger.warn({ consumer, eventId: event.id, eventType: event.eventType, reason }, 'event cannot be applied to a receipt; skipped');
  }
}
