import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of delegation grants. */
export const delegationError = defineErrors({
  /** No such grant, or the caller is neither its principal nor its delegate. */
  delegation_grant_not_found: 'not_found',
  /** The delegate named is not a person known in this region. */
  delegate_not_found: 'unprocessable',
  /** A person cannot delegate to themselves. */
  delegate_is_principal: 'unprocessable',
  /** Only the delegate accepts; only the principal or the delegate revokes. */
  delegation_grant_forbidden: 'forbidden',
  /** The grant cannot move this way from its status (`detail.status`). */
  delegation_grant_transition_not_allowed: 'conflict',
  /** Delegation grants are managed with a person's own access token, never under another grant. */
  delegation_requires_person: 'forbidden',
  /** A delegate homed in another region receives the principal's data: the offer names a lawful basis (`detail.field`). */
  lawful_basis_required: 'unprocessable',
  /** A lawful basis named for a delegate of the principal's own region, where nothing crosses. */
  lawful_basis_not_applicable: 'unprocessable',
});
