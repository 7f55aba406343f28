/** The five kinds of delegation grant (spec "Delegation grant"). */
export const DELEGATION_TYPES = ['guardian', 'caregiver', 'power_of_attorney', 'it_admin', 'peer'] as const;
export type DelegationType = (typeof DELEGATION_TYPES)[number];

/** What a delegate may do on a surface: read (GET, HEAD) or write (every other method). */
export const DELEGATION_ACTIONS = ['read', 'write'] as const;
export type DelegationAction = (typeof DELEGATION_ACTIONS)[number];

/** API surfaces (first path segment after `/api/v1/`) a grant can name: lowercase words. */
export const SURFACE_PATTERN = /^[a-z][a-z_]{0,39}$/;

/** Surfaces no grant may cover: a delegate never manages the principal's delegations. */
export const UNDELEGABLE_SURFACES = ['delegations'] as const;

export type DelegationStatus = 'offered' | 'active' | 'revoked';

/**
 * The crossing of a grant whose delegate is homed in another region: the lawful basis the offer
 * carried and the transfer register entry the offer wrote. Each act of the delegate is recorded
 * under the same basis.
 */
export interface DelegationTransfer {
  lawfulBasis: string;
  derogationArticle: string | null;
  transferId: string;
}

export interface DelegationGrant {
  id: string;
  type: DelegationType;
  principalPersonId: string;
  delegatePersonId: string;
  applicationId: string;
  surfaces: string[];
  actions: DelegationAction[];
  status: DelegationStatus;
  purpose: string | null;
  evidenceReference: string | null;
  expiresAt: Date;
  createdAt: Date;
  acceptedAt: Date | null;
  revokedAt: Date | null;
  revokedBy: string | null;
  /** Null when the delegate is homed in the principal's region (nothing crosses). */
  transfer: DelegationTransfer | null;
}

/** The status a reader sees: an active or offered grant past its end date reads as expired. */
export function effectiveStatus(grant: DelegationGrant, now: Date): DelegationStatus | 'expired' {
  if (grant.status !== 'revoked' && grant.expiresAt.getTime() <= now.getTime()) return 'expired';
  return grant.status;
}
