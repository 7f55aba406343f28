import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { regionSegmentOf, isIdOf } from '@svc/ids';
import { authError } from './auth.errors';
import { CredentialResolver } from './credential-resolver';
import { AccessTokenResolver } from './access-token-resolver';
import { AttesterResolver } from './attester-resolver';
import { ACCOUNT_TOKEN_PREFIX, AccountAccessResolver, type AccountActor } from './account-access-resolver';
import {
  AUTH_ACCOUNT_ACCESS,
  AUTH_ATTESTER_PERMISSION,
  AUTH_COUNTERPARTY_SCOPE,
  AUTH_KINDS,
  AUTH_PUBLIC,
  AUTH_SCOPES,
  type AccountAccessRoles,
} from './decorators';
import { DelegationResolver, delegationTargetOf } from './delegation-resolver';
import { ACCOUNTS_SCOPE, type CredentialKind, type Principal } from './principal';
import { PerRoute } from './per-route';
import { apiTokenDigest } from './token-digest';

interface AuthRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string | undefined>;
  principal?: Principal;
}

/** What a route's decorators ask of its callers (read once per route). */
interface RouteAuthentication {
  readonly isPublic: boolean;
  readonly accountAccess: AccountAccessRoles | undefined;
  readonly kinds: readonly CredentialKind[];
  readonly scopes: readonly string[];
  readonly attesterPermission: string;
  readonly counterpartyScope: string | undefined;
}

const WWW_AUTHENTICATE = { 'WWW-Authenticate': 'Bearer realm="svc"' };

/** Largest bearer value considered; longer ones are refused without hashing. */
const MAX_CREDENTIAL_LENGTH = 512;

function header(request: AuthRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Authenticates every route unless it is @Public: API tokens (Authorization: Bearer, looked up
 * by SHA-256 digest) by default, publishable keys (X-Publishable-Key) and people's OAuth access
 * tokens (Authorization: Bearer, asked of the process's OpenID provider) and trust pairings'
 * counterparty tokens (`ctp_…`, asked of their home region) only where a route allows them. Then checks required scopes and the X-Delegation-Grant-Id hook.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly credentials: CredentialResolver,
    private readonly delegations: DelegationResolver,
    private readonly attesters: AttesterResolver,
    private readonly accessTokens: AccessTokenResolver,
    private readonly accounts: AccountAccessResolver,
  ) {}

  /** What each route's decorators ask of its callers. */
  private readonly routes = new PerRoute<RouteAuthentication>((targets) => {
    const accountAccess = this.reflector.getAllAndOverride<AccountAccessRoles | undefined>(AUTH_ACCOUNT_ACCESS, targets);
    const declared = this.reflector.getAllAndOverride<CredentialKind[] | undefined>(AUTH_KINDS, targets) ?? ['api_token'];
    return {
      isPublic: this.reflector.getAllAndOverride<boolean | undefined>(AUTH_PUBLIC, targets) === true,
      accountAccess,
      kinds: accountAccess ? [...new Set<CredentialKind>([...declared, 'access_token', 'account_token'])] : declared,
      scopes: this.reflector.getAllAndOverride<string[] | undefined>(AUTH_SCOPES, targets) ?? [],
      attesterPermission: this.reflector.getAllAndOverride<string | undefined>(AUTH_ATTESTER_PERMISSION, targets) ?? '',
      counterpartyScope: this.reflector.getAllAndOverride<string | undefined>(AUTH_COUNTERPARTY_SCOPE, targets),
    };
  });

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const { isPublic, accountAccess, kinds, scopes, attesterPermission, counterpartyScope } = this.routes.of(context);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();

    let principal = await this.authenticate(request, kinds, attesterPermission);
    if (accountAccess && (principal.kind === 'account_token' || principal.kind === 'access_token')) {
      // Account credentials act as themselves: no one acts on an account for another person.
      if (header(request, 'x-delegation-grant-id') !== undefined) {
        throw authError('delegation_grant_not_covering', 'Accounts and their applications are not managed under a delegation grant', {
          surface: 'applications',
        });
      }
      principal = await this.onApplication(request, principal, accountAccess);
    }
    if (principal.kind === 'counterparty_token') {
      // A pairing's token does what its pairing says, on routes that name what they need; never more.
      const needed = counterpartyScope;
      if (!needed || !principal.scopes.includes(needed)) {
        throw authError('insufficient_scope', `This trust pairing does not allow ${needed ?? 'this route'}`, {
          required_scope: needed ?? null,
        });
      }
      if (header(request, 'x-delegation-grant-id') !== undefined) {
        throw authError('delegation_grant_invalid', 'A counterparty token acts for no person', { field: 'X-Delegation-Grant-Id' });
      }
      request.principal = principal;
      return true;
    }
    for (const scope of principal.kind === 'attester_token' ? [] : scopes) {
      if (!principal.scopes.includes(scope)) {
        throw authError('insufficient_scope', `This API token lacks the scope ${scope}`, { required_scope: scope });
      }
    }
    const grantId = header(request, 'x-delegation-grant-id');
    if (grantId !== undefined) {
      if (!isIdOf('delegation_grant', grantId) && regionSegmentOf(grantId) === undefined) {
        throw authError('delegation_grant_invalid', 'X-Delegation-Grant-Id is not a delegation grant id', {
          field: 'X-Delegation-Grant-Id',
        });
      }
      const delegation = await this.delegations.resolve(
        grantId,
        principal,
        delegationTargetOf(request.method ?? 'GET', request.url ?? '/'),
      );
      // The request runs in the principal's context; the delegate stays named on the delegation.
      principal.delegation = delegation;
      principal.personId = delegation.principalId;
      if (delegation.home) {
        principal.applicationId = delegation.home.applicationId;
        principal.region = delegation.home.region;
      }
    }
    request.principal = principal;
    return true;
  }

  /**
   * An account credential on an application route: the path's application, if the credential's
   * account owns it and its role covers the request (reads vs. writes), else the owner's error.
   */
  private async onApplication(request: AuthRequest, principal: Principal, roles: AccountAccessRoles): Promise<Principal> {
    const applicationId = request.params?.application_id;
    if (applicationId === undefined) return principal;
    const method = (request.method ?? 'GET').toUpperCase();
    const needed = method === 'GET' || method === 'HEAD' ? roles.read : roles.write;
    let actor: AccountActor;
    if (principal.kind === 'account_token' && principal.account) {
      actor = { accountTokenId: principal.credentialId, accountId: principal.account.id, role: principal.account.role };
    } else if (principal.personId !== undefined && principal.delegation === undefined) {
      // A person's token manages their accounts only when they granted the accounts scope.
      if (!principal.scopes.includes(ACCOUNTS_SCOPE))
        throw authError('insufficient_scope', `This access token lacks the scope ${ACCOUNTS_SCOPE}`, { required_scope: ACCOUNTS_SCOPE });
      actor = { personId: principal.personId };
    } else {
      throw authError('invalid_token', 'The bearer token is not valid', undefined, WWW_AUTHENTICATE);
    }
    const resolved = await this.accounts.authorize(actor, applicationId, needed);
    if (!resolved) throw authError('invalid_token', 'Account credentials are not accepted here', undefined, WWW_AUTHENTICATE);
    return { ...resolved, scopes: [...resolved.scopes] };
  }

  /**
   * A delegate homed in another region acts (and accepts, reads or revokes their grant) in the
   * principal's region with their own access token, which their home region issued: when the
   * request addresses a grant of this region (X-Delegation-Grant-Id, or the grant in the path)
   * naming a delegate of another region, that region alone is asked about the token.
   */
  private async delegateOfAnotherRegion(request: AuthRequest, token: string): Promise<Principal | null> {
    const grantId = header(request, 'x-delegation-grant-id') ?? request.params?.delegation_grant_id;
    if (!grantId || !isIdOf('delegation_grant', grantId)) return null;
    const region = await this.delegations.delegateRegionOf(grantId);
    return region ? this.accessTokens.resolveInRegion(token, region) : null;
  }

  private async authenticate(request: AuthRequest, kinds: readonly CredentialKind[], attesterPermission: string): Promise<Principal> {
    const authorization = header(request, 'authorization');
    if (authorization !== undefined) {
      const match = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization.trim());
      if (!match?.[1] || match[1].length > MAX_CREDENTIAL_LENGTH) {
        throw authError('invalid_token', 'Authorization must be "Bearer <token>"', undefined, WWW_AUTHENTICATE);
      }
      if (match[1].startsWith('tat_') && kinds.includes('attester_token')) {
        return { ...(await this.attesters.resolve(apiTokenDigest(match[1]), attesterPermission)) };
      }
      if (match[1].startsWith(ACCOUNT_TOKEN_PREFIX) && kinds.includes('account_token')) {
        const account = await this.accounts.resolveAccountToken(apiTokenDigest(match[1]));
        if (!account) throw authError('invalid_token', 'The bearer token is not valid', undefined, WWW_AUTHENTICATE);
        return { ...account, scopes: [...account.scopes] };
      }
      if (match[1].startsWith('ctp_') && kinds.includes('counterparty_token')) {
        const region = regionSegmentOf(match[1]);
        const counterparty =
          region && isIdOf('counterparty_token', match[1])
            ? await this.credentials.resolveCounterpartyToken(apiTokenDigest(match[1]), region)
            : undefined;
        if (!counterparty) throw authError('invalid_token', 'The counterparty token is not valid', undefined, WWW_AUTHENTICATE);
        return { ...counterparty, scopes: [...counterparty.scopes] };
      }
      const credential = await this.credentials.resolveApiToken(apiTokenDigest(match[1]));
      if (!credential && kinds.includes('access_token')) {
        const person = (await this.accessTokens.resolve(match[1])) ?? (await this.delegateOfAnotherRegion(request, match[1]));
        if (person) return { ...person, scopes: [...person.scopes] };
      }
      if (!credential) throw authError('invalid_token', 'The bearer token is not valid', undefined, WWW_AUTHENTICATE);
      if (!kinds.includes('api_token')) {
        throw authError('invalid_token', 'This route does not accept an API token', undefined, WWW_AUTHENTICATE);
      }
      return { ...credential, scopes: [...credential.scopes] };
    }
    const publishableKey = header(request, 'x-publishable-key');
    if (publishableKey !== undefined) {
      if (publishableKey.length > MAX_CREDENTIAL_LENGTH || !/^pk_(test|live)_[0-9A-Za-z]+$/.test(publishableKey)) {
        throw authError('invalid_token', 'X-Publishable-Key is not a publishable key');
      }
      const credential = await this.credentials.resolvePublishableKey(publishableKey);
      if (!credential) throw authError('invalid_token', 'The publishable key is not valid');
      if (!kinds.includes('publishable_key')) {
        throw authError('publishable_key_not_allowed', 'A publishable key can only create consent sessions; use an API token server-side');
      }
      return { ...credential, scopes: [] };
    }
    throw authError('unauthenticated', 'Authentication required: send Authorization: Bearer <API token>', undefined, WWW_AUTHENTICATE);
  }
}
