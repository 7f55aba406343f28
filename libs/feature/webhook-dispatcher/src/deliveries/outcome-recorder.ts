import type { Clock } from '@svc/config';
import { GroupCommitQueue, type JobOutcome, type OutboxWriter } from '@svc/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { DeliveriesRepository } from './deliveries.repository';
import type { AttemptOutcome } from './delivery';
import { AUTO_DISABLE_AFTER, retryWaitMs, verdictOf } from './retry-schedule';

/**
 * Most outcomes one transaction writes. A group holds at most one outcome per attempt in flight
 * (WEBHOOK_CONCURRENCY), so this only bounds a misconfigured worker.
 */
export const OUTCOME_BATCH_MAX = 1_024;

/**
 * Records attempt outcomes with group commit: outcomes that finish while a transaction is being
 * written wait for the next one, which writes them all (successes and retries in one statement
 * each, failures one by one), so the commit rate, not the attempt rate, bounds throughput.
 * Each caller's promise settles after its outcome's commit. Within one group, successes are applied
 * before failures. A group the database refuses for any reason but a deadlock (which runs it
 * again) is written again outcome by outcome, so only an outcome that cannot be stored fails. A
 * delivery whose lease was lost (it lapsed and another worker took it) is not written: the other
 * worker's attempt is the one that counts.
 */
export class OutcomeRecorder {
  private readonly queue: GroupCommitQueue<AttemptOutcome, void>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly deliveries: DeliveriesRepository,
    private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly owner: string,
  ) {
    this.queue = new GroupCommitQueue((attempts) => this.commit(attempts), { maxBatch: OUTCOME_BATCH_MAX });
  }

  record(outcome: AttemptOutcome): Promise<void> {
    return this.queue.submit(outcome);
  }

  /** Resolves when everything queued so far is written (or failed). */
  idle(): Promise<void> {
    return this.queue.idle();
  }

  private async commit(attempts: readonly AttemptOutcome[]): Promise<Array<JobOutcome<void>>> {
    await this.dataSource.transaction(async (manager) => {
      // Asynchronous commit: a Postgres crash can forget the last few milliseconds of outcomes,
      // and then those attempts are simply made again with the same X-Svc-Event-ID (at least
      // once, never lost). It spares a WAL flush wait per group on the hottest write path.
      await manager.query('SET LOCAL synchronous_commit = off');
      await this.write(manager, attempts);
    });
    return attempts.map(() => ({ ok: true, value: undefined }));
  }

  private async write(manager: EntityManager, outcomes: readonly AttemptOutcome[]): Promise<void> {
    const now = this.clock.now();
    const successes: AttemptOutcome[] = [];
    const retries: Array<AttemptOutcome & { nextAttemptAt: Date }> = [];
    const failures: Array<{ outcome: AttemptOutcome; reason: 'rejected' | 'attempts_exhausted' }> = [];
    for (const outcome of outcomes) {
      const result = outcome.statusCode !== null ? { statusCode: outcome.statusCode } : { error: outcome.error ?? 'network_error' };
      const verdict = verdictOf(result, outcome.attemptNo, outcome.delivery.maxAttempts);
      switch (verdict) {
        case 'succeeded':
          successes.push(outcome);
          break;
        case 'retry':
          retries.push({ ...outcome, nextAttemptAt: new Date(now.getTime() + retryWaitMs(outcome.attemptNo)) });
          break;
        case 'rejected':
          failures.push({ outcome, reason: 'rejected' });
          break;
        case 'exhausted':
          failures.push({ outcome, reason: 'attempts_exhausted' });
          break;
      }
    }
    await this.deliveries.recordSuccesses(manager, this.owner, successes, now);
    await this.deliveries.recordRetries(manager, this.owner, retries);
    for (const { outcome, reason } of failures) await this.fail(manager, outcome, reason, now);
  }

  /**
   * A delivery failed for good. Unless it was a test delivery: count it against the subscription
   * (410 Gone disables at once, the fifth consecutive failure disables), and write
   * `webhook.delivery_failed` to the outbox in the same transaction — the audit chain records it
   * and the intake fans it out to the application's subscribers of that event.
   */
  private async fail(manager: EntityManager, outcome: AttemptOutcome, reason: 'rejected' | 'attempts_exhausted', now: Date): Promise<void> {
    const row = await this.deliveries.recordFailure(manager, this.owner, outcome, now);
    if (!row || row.is_test) return;
    const { delivery } = outcome;
    const counted = await this.deliveries.countFailure(
      manager,
      delivery.subscriptionId,
      outcome.statusCode === 410,
      AUTO_DISABLE_AFTER,
      now,
    );
    await this.outbox.add(
      manager,
      'webhook.delivery_failed',
      {
        subscriptionId: delivery.subscriptionId,
        deliveryId: delivery.id,
        failedEventId: delivery.eventId,
        failedEventType: delivery.eventType,
        url: delivery.url,
        attempts: outcome.attemptNo,
        lastStatusCode: outcome.statusCode ?? 0,
        lastError: outcome.error ?? '',
        reason,
        subscriptionDisabled: counted?.disabled ?? false,
      },
      { applicationId: delivery.applicationId, occurredAt: now },
    );
  }
}
