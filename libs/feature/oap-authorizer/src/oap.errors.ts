import { defineErrors } from '@svc/errors';

/**
 * Closed list of oap-authorizer reason codes and their kinds (HTTP status at the edge). The
 * OIDC-A credential and attestation codes are the spec's two error tables, verbatim.
 */
export const oapError = defineErrors({
  // Agents and capabilities.
  agent_not_found: 'not_found',
  agent_id_malformed: 'invalid',
  agent_not_discoverable: 'not_found',
  agent_suspended: 'conflict',
  manifest_not_found: 'not_found',
  // Authorities.
  authority_not_found: 'not_found',
  authority_state_conflict: 'conflict',
  authority_ambiguous: 'unprocessable',
  // MCP gateway.
  mcp_server_limit: 'conflict',
  /** No upstream MCP server of the caller's application has this id (another application's answers the same). */
  mcp_server_not_found: 'not_found',
  // Grants, idempotency, DPoP.
  grant_not_found: 'not_found',
  idempotency_key_missing: 'invalid',
  idempotency_key_invalid: 'invalid',
  idempotency_key_reused: 'unprocessable',
  idempotency_request_in_progress: 'conflict',
  dpop_proof_missing: 'unauthenticated',
  dpop_proof_invalid: 'unauthenticated',
  dpop_proof_replayed: 'unauthenticated',
  agent_token_invalid: 'unauthenticated',
  agent_token_grant_mismatch: 'unauthenticated',
  grant_region_mismatch: 'misdirected',
  grant_revoked: 'gone',
  // OIDC-A credential errors (spec table).
  agent_credential_malformed: 'invalid',
  untrusted_agent_credential_issuer: 'invalid',
  agent_credential_signature_invalid: 'invalid',
  agent_credential_expired: 'invalid',
  agent_credential_audience_mismatch: 'invalid',
  agent_credential_replayed: 'conflict',
  agent_metadata_mismatch: 'invalid',
  agent_type_outside_taxonomy: 'invalid',
  // Attestation errors (spec table).
  agent_attestation_malformed: 'invalid',
  agent_attestation_untrusted_provider: 'invalid',
  agent_attestation_signature_invalid: 'invalid',
  agent_attestation_expired: 'invalid',
  agent_attestation_audience_mismatch: 'invalid',
  agent_attestation_kid_revoked: 'invalid',
  agent_attestation_replayed: 'conflict',
  agent_attestation_identity_mismatch: 'invalid',
  // Escalations, verification.
  escalation_not_found: 'not_found',
  escalation_closed: 'conflict',
  escalation_vote_not_allowed: 'forbidden',
  receipt_malformed: 'invalid',
  /** svc-verify with a counterparty token: the receipt was issued to an application other than the pairing's issuer. */
  receipt_not_paired: 'forbidden',
  counterparty_unauthenticated: 'unauthenticated',
  attestation_not_found: 'not_found',
  attestation_digest_mismatch: 'conflict',
  attestation_gone: 'gone',
  rate_limited: 'rate_limited',
  // Vouches and trust scores.
  vouch_not_found: 'not_found',
  vouch_subject_not_found: 'not_found',
  vouch_self_not_allowed: 'unprocessable',
  vouch_already_active: 'conflict',
  vouch_already_revoked: 'conflict',
  vouch_daily_limit_reached: 'rate_limited',
  vouch_idempotency_key_reused: 'unprocessable',
});

/** A reason code of oap-authorizer. */
export type OapErrorCode = (typeof oapError.codes)[number];
