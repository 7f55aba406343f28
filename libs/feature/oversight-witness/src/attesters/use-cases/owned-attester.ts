import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { oversightError } from '../../oversight.errors';
import type { TrustedAttester } from '../attester';
import type { AttestersRepository } from '../attesters.repository';

/**
 * The attester `id` of the caller's application, locked for the transaction. Another
 * application's attester answers exactly like an unknown id (404), so ids cannot be probed.
 * With `live`, a destroyed attester is 410 `attester_destroyed`: destruction is permanent.
 */
export async function ownedAttester(
  repository: AttestersRepository,
  manager: EntityManager,
  applicationId: string,
  id: string,
  options: { live: boolean },
): Promise<TrustedAttester> {
  const attester = await repository.findOwned(manager, applicationId, id, true);
  if (!attester) throw oversightError('attester_not_found', 'Trusted attester not found', { attester_id: id });
  if (options.live && attester.status === 'destroyed') {
    throw oversightError('attester_destroyed', 'The trusted attester was destroyed; create a new one', { attester_id: id });
  }
  return attester;
}

/** Lifecycle changes published for the audit chain; never a token or a digest. */
export type AttesterChange =
  'created' | 'rotated' | 'suspended' | 'unsuspended' | 'destroyed' | 'elevation_requested' | 'elevation_granted';

/** Emits `trusted_attester.changed` in the caller's transaction. */
export async function emitAttesterChanged(
  outbox: OutboxWriter,
  manager: EntityManager,
  attester: TrustedAttester,
  change: AttesterChange,
  at: Date,
): Promise<void> {
  await outbox.add(
    manager,
    'trusted_attester.changed',
    { attesterId: attester.id, change, permissions: attester.permissions },
    { applicationId: attester.applicationId, occurredAt: at },
  );
}
