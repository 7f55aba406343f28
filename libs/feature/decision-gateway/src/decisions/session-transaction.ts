import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { DecisionSession } from './decision';
import { decisionError } from './decisions.errors';
import type { DecisionsRepository } from './decisions.repository';
import { expireIfDue } from './session-expiry';

/**
 * Runs `work` on a locked session inside one transaction, after applying a passed deadline. An
 * action on a session that has expired by time answers 410 session_expired — after the expiry
 * itself has been committed, so the refusal never undoes it. `applicationId` scopes the lookup
 * (API-token routes); session-token routes pass undefined.
 */
export async function onLockedSession<T>(
  repo: DecisionsRepository,
  outbox: OutboxWriter,
  input: { tokenSha256: string; applicationId?: string; now: Date; refuseExpired: boolean },
  work: (manager: EntityManager, session: DecisionSession) => Promise<T>,
): Promise<T> {
  const result = await repo.transaction(async (manager): Promise<{ expired: true } | { expired: false; value: T }> => {
    const found = await repo.find(input.tokenSha256, { manager, lock: true, applicationId: input.applicationId });
    if (!found) throw decisionError('session_not_found', 'Decision session not found');
    const session = await expireIfDue(repo, outbox, manager, found, input.now);
    if (input.refuseExpired && session.outcome === 'expired') return { expired: true };
    return { expired: false, value: await work(manager, session) };
  });
  if (result.expired) throw decisionError('session_expired', 'The decision session passed its deadline');
  return result.value;
}
