/**
 * Event type prefixes (and exact types) that become audit entries: consent decisions, approvals,
 * signatures, grant decisions and receipts, authority changes, attestations and witness receipts,
 * escalations, revocations, and final webhook delivery failures, people's account events (created, email verified, passkey
 * added/removed, aggregated sign-in failures), delegation grants offered, accepted and revoked, data subject requests received, extended, started, completed and rejected, OAuth tokens issued and revoked (spec "What the service does" 6,
 * issue 9 Deliver 1). Selected by type string so event types added later are picked up unchanged.
 */
export const AUDITED_TYPE_PREFIXES = [
  'consent.',
  'approval.',
  'signature.',
  'grant.',
  'authority.',
  'attestation.',
  'escalation.',
  'revocation.',
  'person.',
  'delegation.',
  'data_request.',
] as const;

/** Exact event types audited outside the prefixes above. */
export const AUDITED_EXACT_TYPES = [
  'webhook.delivery_failed',
  'flow.activated',
  'oap.approval_requested',
  'oap.escalation_resolved',
  'oap.approval_expired',
  'trusted_attester.changed',
  'oauth.token_issued',
  'oauth.token_revoked',
] as const;

/** Whether an event of `type` is recorded in the audit chain. */
export function isAuditWorthy(type: string): boolean {
  return (AUDITED_EXACT_TYPES as readonly string[]).includes(type) || AUDITED_TYPE_PREFIXES.some((prefix) => type.startsWith(prefix));
}
