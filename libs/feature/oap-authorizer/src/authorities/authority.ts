import type { AuthorityBounds } from './bounds';

/**
 * Lifecycle of an authority: active ⇄ suspended, either → revoked (final). An authority the
 * application proposes starts `proposed` and becomes `active` only when the person grants it on the
 * hosted page, or `declined` (final) when they decline; neither proposed nor declined covers a grant.
 */
export type AuthorityStatus = 'proposed' | 'declined' | 'active' | 'suspended' | 'revoked';

export const AUTHORITY_STATUSES: readonly AuthorityStatus[] = ['proposed', 'declined', 'active', 'suspended', 'revoked'];

/** A principal's standing delegation to an agent inside an application, holding the bounds. */
export interface Authority {
  id: string;
  applicationId: string;
  agentId: string;
  /** The person who holds the authority; null while it is only proposed (or was declined). */
  principalId: string | null;
  status: AuthorityStatus;
  bounds: AuthorityBounds;
  /** Canonical JSON of `bounds`, exactly as stored and hashed. */
  boundsJson: string;
  /** Declared purposes of use (cascade step 11); empty means none declared. */
  purposes: string[];
  validFrom: Date;
  validUntil: Date;
  /** No grant before validFrom + coolingOffSeconds. */
  coolingOffSeconds: number;
  /** Agent manifest hash when the authority was created: the drift reference of step 15. */
  manifestSha256: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** The person holding a granted authority; the table's check keeps principal_id set outside proposed/declined. */
export function holderOf(authority: Authority): string {
  if (authority.principalId === null) throw new Error(`authority ${authority.id} is ${authority.status} and has no holder`);
  return authority.principalId;
}
