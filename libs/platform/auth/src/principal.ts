/** How a caller proved who it is. */
export type CredentialKind = 'api_token' | 'publishable_key' | 'attester_token' | 'access_token' | 'account_token' | 'counterparty_token';

/**
 * Roles of a member (or an account token) in an organisation account, weakest first: `auditor`
 * reads; `developer` also manages applications, keys, OAuth clients and webhooks; `admin` also
 * manages members and account tokens; `owner` also deletes the account and transfers ownership.
 */
export const ACCOUNT_ROLES = ['auditor', 'developer', 'admin', 'owner'] as const;
export type AccountRole = (typeof ACCOUNT_ROLES)[number];

/** OAuth scope a person's access token needs to act on their organisation accounts. */
export const ACCOUNTS_SCOPE = 'accounts';

/** True when `role` includes everything `needed` may do. */
export function roleCovers(role: AccountRole, needed: AccountRole): boolean {
  return ACCOUNT_ROLES.indexOf(role) >= ACCOUNT_ROLES.indexOf(needed);
}

/**
 * What a trust pairing's counterparty token may do (`scopes` of a `counterparty_token` credential):
 * verify the runtime receipts of the pairing's issuing application at svc-verify, read its consent status.
 */
export const COUNTERPARTY_SCOPES = ['receipts:verify', 'consent_status:read'] as const;
export type CounterpartyScope = (typeof COUNTERPARTY_SCOPES)[number];

/** Scopes an API token may carry beyond its application-level access (spec, Authentication rule 5). */
export const API_TOKEN_SCOPES = ['audit:verify', 'disclosures:write'] as const;
export type ApiTokenScope = (typeof API_TOKEN_SCOPES)[number];

/** What a credential resolves to; never holds the credential itself. */
export interface ResolvedCredential {
  kind: CredentialKind;
  applicationId: string;
  /** `api_token_*` record id, or the publishable key (which is public). */
  credentialId: string;
  scopes: readonly string[];
  environment: 'development' | 'production';
  region: string;
  mode: string;
  /** For a person's OAuth access token (`access_token`): the person (`usr_…`) it was issued for. */
  personId?: string;
  /**
   * For a person's OAuth access token: the RFC 9396 authorization details granted with it (e.g.
   * `openid_credential` for a wallet's credential request); absent when none were.
   */
  authorizationDetails?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /**
   * For account credentials (an account token, or a member's access token on a route that accepts
   * account access): the organisation account acting and its role there.
   */
  account?: { id: string; role: AccountRole };
  /**
   * For a trust pairing's counterparty token (`counterparty_token`): the application holding it.
   * `applicationId` is then the pairing's issuing application, the one whose receipts it verifies
   * and whose consent status it reads; `credentialId` is the pairing (`tpr_…`).
   */
  counterpartyApplicationId?: string;
}

/** A delegate acting in a principal's context (X-Delegation-Grant-Id). */
export interface DelegationContext {
  grantId: string;
  /** The person (`usr_…`) in whose context the request runs. */
  principalId: string;
  /** The person (`usr_…`) who authenticated and acts for the principal. */
  delegateId: string;
  /** Grant type (guardian, caregiver, power_of_attorney, it_admin, peer). */
  type: string;
  /**
   * For a delegate homed in another region (whose token names an application of that region): the
   * grant's application and region, in which the request then runs.
   */
  home?: { applicationId: string; region: string };
}

/** The authenticated caller of a request. */
export interface Principal extends ResolvedCredential {
  delegation?: DelegationContext;
}
