export {
  ACCOUNT_ROLES,
  ACCOUNTS_SCOPE,
  API_TOKEN_SCOPES,
  COUNTERPARTY_SCOPES,
  roleCovers,
  type AccountRole,
  type ApiTokenScope,
  type CounterpartyScope,
  type CredentialKind,
  type DelegationContext,
  type Principal,
  type ResolvedCredential,
} from './principal';
export { authError } from './auth.errors';
export { apiTokenDigest } from './token-digest';
export {
  CREDENTIAL_CACHE_MS,
  CREDENTIAL_STALE_IF_ERROR_DEFAULT_SECONDS,
  CREDENTIAL_STALE_IF_ERROR_MAX_SECONDS,
  CredentialResolver,
  CredentialRevocations,
  RpcCredentialResolver,
  type CredentialCacheOptions,
} from './credential-resolver';
export {
  DelegationResolver,
  NoDelegationGrants,
  delegationTargetOf,
  type DelegationGrantChecker,
  type DelegationTarget,
} from './delegation-resolver';
export {
  AUTH_ACCOUNT_ACCESS,
  AccountAccess,
  type AccountAccessRoles,
  AUTH_ATTESTER_PERMISSION,
  AUTH_COUNTERPARTY_SCOPE,
  AUTH_KINDS,
  AUTH_PUBLIC,
  AUTH_SCOPES,
  Auth,
  CurrentPrincipal,
  Public,
  RequireAttesterPermission,
  RequireCounterpartyScope,
  RequireScopes,
} from './decorators';
export { AttesterResolver } from './attester-resolver';
export { AuthGuard } from './auth.guard';
export { PerRoute, type RouteTargets } from './per-route';
export { AccessTokenResolver, type AccessTokenVerifier } from './access-token-resolver';
export { accessReplyOf, credentialOfAccessReply, isAccountRole } from './access-rpc';
export { ACCOUNT_TOKEN_PREFIX, AccountAccessResolver, type AccountAccessVerifier, type AccountActor } from './account-access-resolver';
