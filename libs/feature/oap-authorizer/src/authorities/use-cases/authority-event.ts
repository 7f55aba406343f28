import type { StampedApplicationFacts } from '@svc/bus';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import type { Authority } from '../authority';

/** The four authority event types (consumed by the receipts and audit services). */
export type AuthorityEventType = 'authority.created' | 'authority.suspended' | 'authority.resumed' | 'authority.revoked';

/** Facts only the creation knows, carried by `authority.created` for the authorization receipt. */
export interface AuthorityGrantFacts {
  agentName: string;
  /** Credential-free URL where the authority is withdrawn. */
  withdrawalUrl: string;
  /** The application's name and jurisdiction for the receipt's controller; undefined when they could not be read now. */
  application: StampedApplicationFacts | undefined;
}

/**
 * Writes an authority transition into the outbox, in the caller's transaction. Every event carries
 * the authority's stored facts (bounds, window, purposes, cooling-off, creation time), so the
 * receipts service can freeze the authorization record from `authority.created` alone.
 */
export async function emitAuthorityEvent(
  outbox: OutboxWriter,
  manager: EntityManager,
  type: AuthorityEventType,
  authority: Authority,
  at: Date,
  reason = '',
  grant?: AuthorityGrantFacts,
): Promise<void> {
  await outbox.add(
    manager,
    type,
    {
      authorityId: authority.id,
      agentId: authority.agentId,
      principalId: authority.principalId ?? undefined,
      status: authority.status,
      boundsJson: authority.boundsJson,
      validFrom: authority.validFrom.toISOString(),
      validUntil: authority.validUntil.toISOString(),
      reason,
      purposes: authority.purposes,
      coolingOffSeconds: authority.coolingOffSeconds,
      createdAt: authority.createdAt.toISOString(),
      agentName: grant?.agentName ?? '',
      withdrawalUrl: grant?.withdrawalUrl ?? '',
      ...(grant?.application ? { application: grant.application } : {}),
    },
    { applicationId: authority.applicationId, occurredAt: at },
  );
}
