import type { GrantResponse } from './grant.response';

/** An allowed grant: what the agent token authorises, bound to the agent's DPoP key. */
export interface Grant {
  id: string;
  applicationId: string;
  agentId: string;
  authorityId: string;
  scopes: string[];
  actions: string[];
  amount: string | null;
  currency: string | null;
  /** Thumbprint every DPoP proof presented with the agent token must match. */
  dpopJkt: string;
  validUntil: Date;
  status: 'active' | 'revoked';
  receiptJti: string;
  receipt: string;
  createdAt: Date;
  revokedAt: Date | null;
  consumedAt: Date | null;
}

/** The API view of a grant (never the token). */
export function grantView(grant: Grant): Record<string, unknown> {
  return {
    id: grant.id,
    object: 'grant',
    agent_id: grant.agentId,
    authority_id: grant.authorityId,
    scope: grant.scopes,
    actions: grant.actions,
    value: grant.amount === null ? null : { amount: grant.amount, currency: grant.currency },
    valid_until: grant.validUntil.toISOString(),
    status: grant.status,
    created_at: grant.createdAt.toISOString(),
    revoked_at: grant.revokedAt?.toISOString() ?? null,
  } satisfies GrantResponse;
}
