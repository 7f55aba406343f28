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
  // The application (API token) moves its authorities; a person (their own OAuth access token)
  // only the authorities they granted. To anyone else the authority does not exist.
  const owned =
    principal.kind === 'access_token'
      ? principal.personId !== undefined && existing?.principalId === principal.personId
      : existing?.applicationId === principal.applicationId;
  if (!existing || !owned) throw oapError('authority_not_found', 'Authority not found', { authority_id: authorityId });
  const now = deps.clock.now();
  return deps.authorities.transaction(async (manager) => {
    const moved = await deps.authorities.transition(manager, authorityId, move.from, move.to, now);
    if (!moved) {
      const current = await deps.authorities.find(authorityId, manager);
      throw oapError('authority_state_conflict', `Authority is ${current?.status ?? 'gone'}; cannot become ${move.to}`, {
        status: current?.status,
      });
    }
    await emitAuthorityEvent(deps.outbox, manager, move.event, moved, now, reason);
    return moved;
  });
}
