import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { AccountRole, CounterpartyScope, CredentialKind, Principal } from './principal';

export const AUTH_KINDS = 'svc:auth-kinds';
export const AUTH_SCOPES = 'svc:auth-scopes';
export const AUTH_PUBLIC = 'svc:auth-public';
export const AUTH_ATTESTER_PERMISSION = 'svc:auth-attester-permission';
export const AUTH_ACCOUNT_ACCESS = 'svc:auth-account-access';

/** Minimum account roles of a route that accepts account credentials, by kind of request. */
export interface AccountAccessRoles {
  /** GET and HEAD; default `auditor`. */
  read: AccountRole;
  /** Every other method; default `developer`. */
  write: AccountRole;
}

export const AUTH_COUNTERPARTY_SCOPE = 'svc:auth-counterparty-scope';

/** Credential kinds a route accepts. Without this decorator a route accepts API tokens only. */
export const Auth = (...kinds: CredentialKind[]): MethodDecorator & ClassDecorator => SetMetadata(AUTH_KINDS, kinds);

/** API-token scopes a route requires, e.g. `@RequireScopes('audit:verify')`. */
export const RequireScopes = (...scopes: string[]): MethodDecorator & ClassDecorator => SetMetadata(AUTH_SCOPES, scopes);

/**
 * Trusted-attester permission a route requires when called with an attester token
 * (`Authorization: Bearer tat_…`, accepted where `@Auth(…, 'attester_token')`).
 */
export const RequireAttesterPermission = (permission: string): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_ATTESTER_PERMISSION, permission);

/**
 * Scope a trust pairing's counterparty token needs on a route that accepts it
 * (`@Auth(…, 'counterparty_token')`); a route accepting such tokens must name one.
 */
export const RequireCounterpartyScope = (scope: CounterpartyScope): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_COUNTERPARTY_SCOPE, scope);

/** Marks a route as anonymous (health, discovery, public documents). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(AUTH_PUBLIC, true);

/** Injects the authenticated principal into a handler parameter. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const request = context.switchToHttp().getRequest<{ principal?: Principal }>();
  if (!request.principal) throw new Error('CurrentPrincipal used on a route without authentication');
  return request.principal;
});

/**
 * Marks an application route (path parameter `application_id`) as open to account credentials
 * besides the application's API token: an account token (`Authorization: Bearer acct_…`) or a
 * member's OAuth access token, each only with a role covering the request (reads `auditor`,
 * writes `developer` unless given). The guard then treats the request as the application's:
 * `principal.applicationId` is the path's application, `principal.account` names account and role.
 */
export const AccountAccess = (roles: Partial<AccountAccessRoles> = {}): MethodDecorator & ClassDecorator =>
  SetMetadata(AUTH_ACCOUNT_ACCESS, { read: roles.read ?? 'auditor', write: roles.write ?? 'developer' } satisfies AccountAccessRoles);
