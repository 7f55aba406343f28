/** Postgres schema owned by oversight-witness. */
export const OVERSIGHT_SCHEMA = 'oversight';

/** OAP wire version stamped into witness receipts (spec, Versioning 4). */
export const OAP_VERSION = '1.0';

/**
 * Oversight conformance level this service implements (spec, Versioning 4: `oversight_basic`,
 * `oversight_full`). `oversight_full` = attestations with witness receipts, idempotent replay,
 * sequence gap flagging, human escalation with approve/deny/counter, heartbeats and trusted
 * attester lifecycle. oap-authorizer's `/api/v1/oap/version` may import this to advertise it.
 */
export const OVERSIGHT_CONFORMANCE = 'oversight_full';

/** Oversight levels this deployment can serve, lowest first (`oversight_conformance_levels`). */
export const OVERSIGHT_CONFORMANCE_LEVELS = ['oversight_basic', 'oversight_full'] as const;
