import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { DecisionSession } from './decision';
import type { DecisionsRepository } from './decisions.repository';
import { addVoteOutcomeEvent } from './outcome-events';

/**
 * Closes an open session whose deadline has passed (Clock time): status and outcome `expired`.
 * A signing decision publishes `signature.expired`; consent and approval have no expiry event in
 * the spec's list. Returns the session as it now stands. The session row must be locked.
 */
export async function expireIfDue(
  repo: DecisionsRepository,
  outbox: OutboxWriter,
  manager: EntityManager,
  session: DecisionSession,
  now: Date,
): Promise<DecisionSession> {
  if (session.completedAt !== null || session.deadline.getTime() > now.getTime()) return session;
  const expired = await repo.update(manager, session.tokenSha256, { status: 'expired', outcome: 'expired', completedAt: now }, now);
  if (expired.kind === 'signature_request' && !(await repo.signingOutcomes.onResolved(manager, expired, now)))
    await addVoteOutcomeEvent(outbox, manager, expired, await repo.tally(manager, expired.tokenSha256), now);
  return expired;
}
