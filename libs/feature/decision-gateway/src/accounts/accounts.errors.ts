import { defineErrors } from '@svc/errors';

/** Closed list of the accounts aggregate's reason codes. */
export const accountsError = defineErrors({
  /** Unknown account, or one the caller is not a member of (never told apart). */
  account_not_found: 'not_found',
  /** The caller's role in the account does not cover the request (`detail.required_role`, `detail.role`). */
  account_role_insufficient: 'forbidden',
  /** Creating an account or an application needs a person's access token or an account token. */
  account_credentials_required: 'forbidden',
  account_member_not_found: 'not_found',
  account_member_exists: 'conflict',
  /** The owner cannot be removed or demoted except by transferring ownership. */
  account_owner_protected: 'conflict',
  account_token_not_found: 'not_found',
  /** An account that still owns applications cannot be deleted. */
  account_has_applications: 'conflict',
  /** The person to add is not known in this region. */
  person_not_found: 'not_found',
  /** A sandbox reset was asked of a production application. */
  sandbox_reset_production: 'conflict',
  publishable_key_not_found: 'not_found',
  /** The application's last active publishable key cannot be revoked. */
  last_publishable_key: 'conflict',
});
