import { defineErrors } from '@svc/errors';

/** Closed list of reason codes of support reads. */
export const supportError = defineErrors({
  /** No such person in the person's home region (`detail.field`). */
  person_not_found: 'not_found',
  /** The person is homed in another region: their data crosses to the operator, and a crossing needs a lawful basis (`detail.field`). */
  lawful_basis_required: 'unprocessable',
  /** A lawful basis named for a person of the operator's own region, where nothing crosses (`detail.field`). */
  lawful_basis_not_applicable: 'unprocessable',
  /** A person's region releases their data to another region only against that region's transfer register entry. */
  transfer_not_recorded: 'forbidden',
  /** Only an account credential (account token or member) with the admin role or above reads for support. */
  support_operator_required: 'forbidden',
});
