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
 * One event's part of a batch ({@link ReceiptIntake.onceEach}): the event, and why it cannot
 * become a receipt when it cannot (logged, marked processed).
 */
export interface IntakeJob {
  event: DeliveredEvent;
  refused?: unknown;
}

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
   * {@link once} for a batch: the inbox marks and the work of every job not processed before commit
   * in ONE transaction (a group commit). `work` gets the fresh jobs that are not refused and
   * answers, for each in order, whether it changed something or the error that refused it; a
   * transient error (thrown, or answered) rolls the transaction back, and each job is then
   * committed alone, so only the job that cannot be committed is redelivered: one event never
   * holds back another application's receipts. One outcome per job, in order.
   */
  async onceEach<J extends IntakeJob>(
    consumer: string,
    jobs: readonly J[],
    work: (manager: EntityManager, fresh: readonly J[]) => Promise<ReadonlyArray<boolean | Error>>,
  ): Promise<Array<PromiseSettledResult<boolean>>> {
    const outcomes = await commitIsolatingFailures(jobs, (batch) =>
      this.dataSource.transaction(async (manager) => {
        const marked = new Set(
          await markProcessed(
            manager,
            RECEIPTS_SCHEMA,
            consumer,
            batch.map((job) => job.event.id),
          ),
        );
        const fresh = batch.filter((job) => marked.has(job.event.id));
        for (const job of fresh) if (job.refused !== undefined) this.refused(consumer, job.event, job.refused);
        const todo = fresh.filter((job) => job.refused === undefined);
        const results = todo.length === 0 ? [] : await work(manager, todo);
        const changed = new Map<J, boolean>();
        for (const [i, job] of todo.entries()) {
          const result = results[i];
          if (result instanceof Error) {
            if (isTransient(result)) throw result;
            this.refused(consumer, job.event, result);
          }
          changed.set(job, result === true);
        }
        return batch.map((job) => ({ ok: true as const, value: changed.get(job) ?? false }));
      }),
    );
    return outcomes.map((outcome) =>
      outcome.ok ? { status: 'fulfilled', value: outcome.value } : { status: 'rejected', reason: outcome.error },
    );
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
