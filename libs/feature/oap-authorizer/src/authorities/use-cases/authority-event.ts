import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { Authority } from '../authority';

/** The four authority event types (consumed by the receipts and audit services). */
export type AuthorityEventType = 'authority.created' | 'authority.suspended' | 'authority.resumed' | 'authority.revoked';

/** Writes an authority transition into the outbox, in the caller's transaction. */
export async function emitAuthorityEvent(outbox: OutboxWriter, manager: EntityManager, type: AuthorityEventType, authority: Authority, at: Date, reason = ''): Promise<void> {
  await outbox.add(
    manager,
    type,
    {
      authorityId: authority.id,
      agentId: authority.agentId,
      principalId: authority.principalId,
      status: authority.status,
      boundsJson: authority.boundsJson,
      validFrom: authority.validFrom.toISOString(),
      validUntil: authority.validUntil.toISOString(),
      reason,
    },
    { applicationId: authority.applicationId, occurredAt: at },
  );
}
