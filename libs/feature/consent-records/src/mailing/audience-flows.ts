import { Injectable } from '@nestjs/common';
import { ReadCache, untilElapsed } from '@svc/persistence';
import { MailingAudiencesRepository } from './mailing-audiences.repository';

/**
 * Which flows of an application have a connected mailing audience, kept in memory so the record
 * events of the many flows without one cost no statement (the mailing consumer hears every record
 * event). Connecting and deleting an audience go through {@link change}: in this process the
 * answer is renewed at their commit, so the records written after a connection commits reach it.
 * No event tells other processes of a connection, so another process renews its answer at the
 * latest after {@link AudienceFlows.MAX_AGE_MS}: a connection is answered only once that time has
 * passed since its commit ({@link settled}), so every record written after the answer reaches the
 * audience, whichever process handles its event.
 */
@Injectable()
export class AudienceFlows {
  /** How long an answer is reused: how late another process may learn of a connection made in this one. */
  static readonly MAX_AGE_MS = 1_000;

  private readonly cache = new ReadCache<ReadonlySet<string>>({ maxAgeMs: AudienceFlows.MAX_AGE_MS });

  constructor(private readonly audiences: MailingAudiencesRepository) {}

  /** True when a mailing audience of the application is connected to the flow. */
  async connected(applicationId: string, flowId: string): Promise<boolean> {
    return (await this.cache.get(applicationId, () => this.audiences.flowsWithAudiences(applicationId))).has(flowId);
  }

  /** Runs a transaction that connects or deletes an audience of the application, renewing the answer at its commit. */
  change<T>(applicationId: string, work: () => Promise<T>): Promise<T> {
    return this.cache.change([applicationId], work);
  }

  /**
   * Resolves once every process's answer from before a commit made at `committedAt` (a
   * `performance.now()` reading) has expired. An answer's age counts from the start of its read,
   * which came before the snapshot it saw, so a read that missed the commit started before it.
   */
  settled(committedAt: number): Promise<void> {
    return untilElapsed(committedAt, AudienceFlows.MAX_AGE_MS);
  }
}
