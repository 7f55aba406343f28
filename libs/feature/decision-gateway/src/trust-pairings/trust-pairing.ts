import type { CounterpartyScope } from '@svc/auth';

export const TRUST_PAIRING_STATUSES = ['proposed', 'active', 'declined', 'revoked'] as const;
export type TrustPairingStatus = (typeof TRUST_PAIRING_STATUSES)[number];

/** The two sides of a pairing: the application whose receipts are verified, and the one verifying. */
export type TrustPairingRole = 'issuer' | 'counterparty';

/** Moves on a pairing and who may make them. */
export type TrustPairingMove = 'accept' | 'decline' | 'revoke';

/**
 * A trust pairing between an issuing application and a counterparty application: proposed by the
 * issuer, accepted or declined by the counterparty, then active until either side revokes it.
 */
export interface TrustPairing {
  id: string;
  issuerApplicationId: string;
  counterpartyApplicationId: string;
  name: string;
  scopes: CounterpartyScope[];
  status: TrustPairingStatus;
  proposedAt: Date;
  acceptedAt: Date | null;
  declinedAt: Date | null;
  revokedAt: Date | null;
  /** The application that revoked it. */
  revokedBy: string | null;
  updatedAt: Date;
}

/** The caller's side of a pairing, or undefined when the caller is neither party. */
export function roleOf(pairing: TrustPairing, applicationId: string): TrustPairingRole | undefined {
  if (pairing.issuerApplicationId === applicationId) return 'issuer';
  if (pairing.counterpartyApplicationId === applicationId) return 'counterparty';
  return undefined;
}

/** The status a move leads to from `status` for `role`, or undefined when the move is not allowed. */
export function statusAfter(status: TrustPairingStatus, role: TrustPairingRole, move: TrustPairingMove): TrustPairingStatus | undefined {
  if (move === 'revoke') return status === 'proposed' || status === 'active' ? 'revoked' : undefined;
  // Only the other party answers a proposal: the issuer cannot accept its own.
  if (role !== 'counterparty' || status !== 'proposed') return undefined;
  return move === 'accept' ? 'active' : 'declined';
}
