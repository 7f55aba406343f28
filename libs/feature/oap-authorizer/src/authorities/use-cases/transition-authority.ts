import type { Principal } from '@svc/auth';
import type { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { oapError } from '../../oap.errors';
import type { Authority, AuthorityStatus } from '../authority';
import type { AuthoritiesRepository } from '../authorities.repository';
import { emitAuthorityEvent, type AuthorityEventType } from './authority-event';

/** Shared body of suspend / resume / revoke: ownership, the guarded state move and its event. */
export async function transitionAuthority(
  deps: { authorities: AuthoritiesRepository; outbox: OutboxWriter; clock: Clock },
  principal: Principal,
  authorityId: string,
  move: { from: readonly AuthorityStatus[]; to: AuthorityStatus; event: AuthorityEventType },
  reason: string,
): Promise<Authority> {
  const existing = await deps.authorities.find(authorityId);
  if (!existing || existing.applicationId !== principal.applicationId) throw oapError('authority_not_found', 'Authority not found', { authority_id: authorityId });
  const now = deps.clock.now();
  return deps.authorities.transaction(async (manager) => {
    const moved = await deps.authorities.transition(manager, authorityId, move.from, move.to, now);
    if (!moved) {
      const current = await deps.authorities.find(authorityId, manager);
      throw oapError('authority_state_conflict', `Authority is ${current?.status ?? 'gone'}; cannot become ${move.to}`, { status: current?.status });
    }
    await emitAuthorityEvent(deps.outbox, manager, move.event, moved, now, reason);
    return moved;
  });
}
