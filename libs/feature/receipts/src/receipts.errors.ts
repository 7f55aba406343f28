import { defineErrors } from '@svc/errors';

/**
 * Closed list of receipts reason codes. Statuses of the three the spec leaves open ("Other coded
 * errors"), chosen here:
 * - `unknown_flavor` → 400: a query parameter outside its closed set is a malformed request.
 * - `dpv_unavailable` → 422: the request is well formed and the record exists, but a pure-authority
 *   record (no purposes of processing) has no truthful DPV mapping; canonical and signed still work.
 * - `not_signable` → 422: the record exists but its rendered document cannot be signed (it does not
 *   validate against the published schema, or has no canonical form); the platform never signs a
 *   document that a verifier would then reject.
 */
export const receiptsError = defineErrors({
  receipt_not_found: 'not_found',
  unknown_flavor: 'invalid',
  dpv_unavailable: 'unprocessable',
  not_signable: 'unprocessable',
  receipt_input_invalid: 'invalid',
  receipt_already_frozen: 'conflict',
  flow_not_found: 'not_found',
  flow_not_active: 'unprocessable',
  disclosed_at_in_future: 'unprocessable',
  // Verifiable credentials (OpenID4VCI issuance; the token and credential endpoint codes are the
  // OAuth / OpenID4VCI error names).
  credential_not_found: 'not_found',
  credential_subject_inactive: 'unprocessable',
  credential_subject_not_found: 'not_found',
  credential_offer_not_allowed: 'forbidden',
  invalid_grant: 'invalid',
  unsupported_grant_type: 'invalid',
  invalid_token: 'unauthenticated',
  insufficient_scope: 'forbidden',
  invalid_proof: 'invalid',
  invalid_nonce: 'invalid',
  unknown_credential_configuration: 'invalid',
  status_list_not_found: 'not_found',
  // A credential of another region is verified only once its crossing is in the transfer register.
  lawful_basis_required: 'unprocessable',
});

export type ReceiptsErrorCode = (typeof receiptsError.codes)[number];
