import { Injectable } from '@nestjs/common';
import { ReadCache, untilElapsed } from '@svc/persistence';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * Which applications have at least one enabled subscription, kept in memory so the events of the
 * many applications without one cost the intake no statement (it hears every subscribable event).
 * Creating and enabling a subscription go through {@link change}: in this process the answer is
 * renewed at their commit, so the events written after that commit reach the subscription. No
 * event tells other processes of a new or re-enabled subscription, so another process renews its
 * answer at the latest after {@link SubscribedApplications.MAX_AGE_MS}: such a change is answered
 * only once that time has passed since its commit ({@link settled}), so every event written after
 * the answer reaches the subscription, whichever process consumes it.
 */
@Injectable()
export class SubscribedApplications {
  /** How long an answer is reused: how late another process may learn of a subscription made in this one. */
  static readonly MAX_AGE_MS = 1_000;

  private readonly cache = new ReadCache<boolean>({ maxAgeMs: SubscribedApplications.MAX_AGE_MS });

  constructor(private readonly subscriptions: SubscriptionsRepository) {}

  /** True when the application has an enabled subscription. */
  async subscribed(applicationId: string): Promise<boolean> {
    return (await this.subscribedOf([applicationId])).has(applicationId);
  }

  /**
   * The given applications that have an enabled subscription. Answers not cached (or not
   * reusable) are read together, in one statement.
   */
  async subscribedOf(applicationIds: Iterable<string>): Promise<Set<string>> {
    const ids = [...new Set(applicationIds)];
    const missing: string[] = [];
    let read: Promise<Set<string>> | undefined;
    // The cache asks `read` of every missing key synchronously, so one statement answers them all.
    const readMissing = () => (read ??= this.subscriptions.applicationsWithEnabled(missing));
    const answers = await Promise.all(
      ids.map((id) =>
        this.cache.get(id, () => {
          missing.push(id);
          return Promise.resolve()
            .then(readMissing)
            .then((found) => found.has(id));
        }),
      ),
    );
    return new Set(ids.filter((_, i) => answers[i]));
  }

  /** Runs a transaction that creates, enables, disables or deletes subscriptions of the applications, renewing their answers at its commit. */
  change<T>(applicationIds: readonly string[], work: () => Promise<T>): Promise<T> {
    return this.cache.change(applicationIds, work);
  }

  /**
   * Resolves once every process's answer from before a commit made at `committedAt` (a
   * `performance.now()` reading) has expired. An answer's age counts from the start of its read,
   * which came before the snapshot it saw, so a read that missed the commit started before it.
   */
  settled(committedAt: number): Promise<void> {
    return untilElapsed(committedAt, SubscribedApplications.MAX_AGE_MS);
  }
}
