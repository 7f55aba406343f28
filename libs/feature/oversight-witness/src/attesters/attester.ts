import type { LivenessResponse } from '../attestations/attestation.response';
import { createHash } from 'node:crypto';
import { newRegionalId, type IdRegion } from '@svc/ids';

/** Trusted attester permissions (spec, Authentication rule 9). */
export const ATTESTER_PERMISSIONS = ['attestations:submit', 'attestations:heartbeat', 'escalations:create', 'revocations:trigger'] as const;
export type AttesterPermission = (typeof ATTESTER_PERMISSIONS)[number];

/** Permissions an application may give an attester itself; `revocations:trigger` is operator-gated. */
export const SELF_SERVICE_PERMISSIONS = ['attestations:submit', 'attestations:heartbeat', 'escalations:create'] as const;

/** Permissions of a new attester when the request names none. */
export const DEFAULT_PERMISSIONS: readonly AttesterPermission[] = ['attestations:submit', 'attestations:heartbeat'];

/** Permissions only an operator grants, through an elevation request. */
export const OPERATOR_GATED_PERMISSIONS = ['revocations:trigger'] as const;

export type AttesterStatus = 'active' | 'suspended' | 'destroyed';

/** Default rotation overlap: the previous token stays valid this long, seconds (spec: 24 h). */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;

/** Longest overlap a rotation may ask for, seconds (7 days): a leaked old token must die soon. */
export const MAX_ROTATION_OVERLAP_SECONDS = 604_800;

/** A trusted attester as stored: only token digests, never a token. */
export interface TrustedAttester {
  id: string;
  applicationId: string;
  name: string;
  permissions: AttesterPermission[];
  /** The one application the attester is scoped to, or null (unscoped). */
  scopeApplicationId: string | null;
  status: AttesterStatus;
  /** True while the previous token slot is still honoured. */
  previousTokenExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  rotatedAt: Date | null;
  suspendedAt: Date | null;
  destroyedAt: Date | null;
  lastHeartbeatAt: Date | null;
  lastHeartbeat: Record<string, unknown> | null;
}

/** Mints a trusted attester token `tat_<region>_<base64url(32)>` (shown once). */
export function newAttesterToken(region: IdRegion): string {
  return newRegionalId('trusted_attester_token', region);
}

/** SHA-256 hex under which an attester token is stored and looked up. */
export function attesterTokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Default silence threshold of heartbeats, seconds: an engine quiet for longer is flagged `silent`. */
export const DEFAULT_SILENT_AFTER_SECONDS = 300;

/** Last heartbeat and the `silent` flag (no heartbeat, or the last one older than the threshold). */
export function livenessView(attester: TrustedAttester, now: Date, silentAfterSeconds: number): LivenessResponse {
  const last = attester.lastHeartbeatAt;
  return {
    last_heartbeat_at: last?.toISOString() ?? null,
    last_heartbeat: attester.lastHeartbeat,
    silent_after_seconds: silentAfterSeconds,
    silent: attester.status === 'active' && (last === null || now.getTime() - last.getTime() > silentAfterSeconds * 1000),
  };
}

/** How a presented token matched: the current slot, or the previous one inside its overlap. */
export type TokenSlot = 'current' | 'previous';

/** The authenticated trusted attester of a request. */
export interface AttesterPrincipal {
  attester: TrustedAttester;
  /** Which token slot matched; `previous` means the caller still uses a rotated-out token. */
  slot: TokenSlot;
}
