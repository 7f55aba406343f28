import { Inject, Injectable } from '@nestjs/common';
import type { DeliveredEvent } from '@svc/bus';
import { isDomainError } from '@svc/errors';
import { processOnce, wasProcessed } from '@svc/persistence';
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
