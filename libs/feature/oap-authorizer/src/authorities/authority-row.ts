import type { Authority, AuthorityStatus } from './authority';
import type { AuthorityBounds } from './bounds';

/** An `oap.authorities` row as selected with {@link AUTHORITY_COLUMNS}. */
export interface AuthorityRow {
  id: string;
  application_id: string;
  agent_id: string;
  principal_id: string | null;
  status: AuthorityStatus;
  bounds_json: string;
  purposes: string[];
  valid_from: Date;
  valid_until: Date;
  cooling_off_seconds: number;
  manifest_sha256: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export const AUTHORITY_COLUMNS =
  'id, application_id, agent_id, principal_id, status, bounds_json, purposes, valid_from, valid_until, cooling_off_seconds, manifest_sha256, created_at, revoked_at';

export function toAuthority(row: AuthorityRow): Authority {
  return {
    id: row.id,
    applicationId: row.application_id,
    agentId: row.agent_id,
    principalId: row.principal_id,
    status: row.status,
    bounds: JSON.parse(row.bounds_json) as AuthorityBounds,
    boundsJson: row.bounds_json,
    purposes: row.purposes,
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    coolingOffSeconds: row.cooling_off_seconds,
    manifestSha256: row.manifest_sha256,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
