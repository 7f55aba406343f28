import type { AuthorityBounds } from './bounds';

/** Lifecycle of an authority: active ⇄ suspended, either → revoked (final). */
export type AuthorityStatus = 'active' | 'suspended' | 'revoked';

/** A principal's standing delegation to an agent inside an application, holding the bounds. */
export interface Authority {
  id: string;
  applicationId: string;
  agentId: string;
  principalId: string;
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

