/** How a caller proved who it is. */
export type CredentialKind = 'api_token' | 'publishable_key' | 'attester_token' | 'access_token' | 'counterparty_token';

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
}

/** The authenticated caller of a request. */
export interface Principal extends ResolvedCredential {
  delegation?: DelegationContext;
}
