import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ACCOUNTS_SCOPE,
  AccountAccessResolver,
  authError,
  roleCovers,
  type AccountActor,
  type AccountRole,
  type Principal,
  type ResolvedCredential,
} from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { gatewayError } from '../gateway.errors';
import { ApplicationsRepository } from '../applications/applications.repository';
import { accountsError } from './accounts.errors';
import { AccountsRepository } from './accounts.repository';

/**
 * The caller's role in an account: an account token's own role in its account, or a person's
 * membership (access token). An account the caller is not part of answers like an unknown one.
 */
export async function roleIn(accounts: AccountsRepository, principal: Principal, accountId: string): Promise<AccountRole> {
  let role: AccountRole | undefined;
  if (principal.kind === 'account_token') role = principal.account?.id === accountId ? principal.account.role : undefined;
  else if (principal.kind === 'access_token' && principal.personId !== undefined && principal.delegation === undefined) {
    requireAccountsScope(principal);
    role = await accounts.memberRole(accountId, principal.personId);
  }
  if (!role || !(await accounts.findAccount(accountId)))
    throw accountsError('account_not_found', 'Account not found', { account_id: accountId });
  return role;
}

/** A person's access token acts on accounts only with the `accounts` scope (403 `insufficient_scope`). */
export function requireAccountsScope(principal: Principal): void {
  if (principal.kind === 'access_token' && !principal.scopes.includes(ACCOUNTS_SCOPE)) {
    throw authError('insufficient_scope', `This access token lacks the scope ${ACCOUNTS_SCOPE}`, { required_scope: ACCOUNTS_SCOPE });
  }
}

/** Refuses a role that does not cover `needed` (403 naming both). */
export function requireRole(role: AccountRole, needed: AccountRole): void {
  if (!roleCovers(role, needed))
    throw accountsError('account_role_insufficient', `This needs the ${needed} role in the account`, { required_role: needed, role });
}

/**
 * Answers the auth guard for account credentials: resolves account tokens by digest and decides
 * whether an account token or a member may act on an application, registered with the process's
 * `AccountAccessResolver` at start.
 */
@Injectable()
export class AccountAccessHost implements OnModuleInit {
  constructor(
    private readonly resolver: AccountAccessResolver,
    private readonly accounts: AccountsRepository,
    private readonly applications: ApplicationsRepository,
    private readonly config: PlatformConfig,
  ) {}

  onModuleInit(): void {
    this.resolver.register({
      resolveAccountToken: (digest) => this.resolveAccountToken(digest),
      authorize: (actor, applicationId, needed) => this.authorize(actor, applicationId, needed),
    });
  }

  private async resolveAccountToken(digest: string): Promise<ResolvedCredential | null> {
    const token = await this.accounts.findTokenByDigest(digest);
    if (!token) return null;
    // Not an application's credential: no application, the strictest environment.
    return {
      kind: 'account_token',
      applicationId: '',
      credentialId: token.id,
      scopes: [],
      environment: 'production',
      region: this.config.REGION,
      mode: 'conductor',
      account: { id: token.accountId, role: token.role },
    };
  }

  private async authorize(actor: AccountActor, applicationId: string, needed: AccountRole): Promise<ResolvedCredential> {
    const notFound = (): Error => gatewayError('application_not_found', 'Application not found', { application_id: applicationId });
    const accountId = await this.accounts.accountOfApplication(applicationId);
    if (!accountId) throw notFound();
    const role =
      'personId' in actor
        ? await this.accounts.memberRole(accountId, actor.personId)
        : actor.accountId === accountId
          ? actor.role
          : undefined;
    if (!role) throw notFound();
    requireRole(role, needed);
    const app = await this.applications.findApplication(applicationId);
    if (!app) throw notFound();
    return {
      kind: 'personId' in actor ? 'access_token' : 'account_token',
      applicationId: app.id,
      credentialId: 'personId' in actor ? `account_member:${accountId}:${actor.personId}` : actor.accountTokenId,
      scopes: [],
      environment: app.environment,
      region: app.region,
      mode: app.mode,
      ...('personId' in actor ? { personId: actor.personId } : {}),
      account: { id: accountId, role },
    };
  }
}
