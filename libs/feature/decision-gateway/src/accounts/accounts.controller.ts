import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, PageQuery, decodeCursor, toPage, type Page } from '@svc/server';
import { accountsError } from './accounts.errors';
import { AccountBody, AddMemberBody, ChangeMemberBody, IssueAccountTokenBody } from './accounts.dto';
import { AccountsRepository } from './accounts.repository';
import {
  AccountMemberResponse,
  AccountResponse,
  AccountTokenResponse,
  accountTokenView,
  accountView,
  memberView,
} from './accounts.response';
import { requireAccountsScope, requireRole, roleIn } from './account-access';
import { ChangeAccount, CreateAccount } from './use-cases/create-account.use-case';
import { ManageAccountTokens } from './use-cases/manage-account-tokens.use-case';
import { ManageMembers } from './use-cases/manage-members.use-case';

/**
 * Connect: organisation accounts, their members (people with a role) and account tokens. A person
 * calls with their own OAuth access token, a server with an account token (`acct_…`); each
 * request is checked against the caller's role (see the decision-gateway README's role matrix).
 */
@Controller('api/v1/accounts')
@Auth('access_token', 'account_token')
export class AccountsController {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly createAccount: CreateAccount,
    private readonly changeAccount: ChangeAccount,
    private readonly members: ManageMembers,
    private readonly tokens: ManageAccountTokens,
  ) {}

  @Post()
  @Auth('access_token')
  @ApiDoc({ tag: 'Connect', summary: 'Create an organisation account; the signed-in person becomes its owner', errors: [400, 401, 403] })
  @ApiResponseOf(AccountResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: AccountBody): Promise<AccountResponse> {
    return accountView(await this.createAccount.execute(principal, body.name), 'owner');
  }

  @Get()
  @ApiDoc({
    tag: 'Connect',
    summary: "The caller's accounts: a person's memberships, or an account token's own account",
    errors: [400, 401, 403],
  })
  @ApiResponseOf(AccountResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: PageQuery): Promise<Page<AccountResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    if (principal.kind === 'account_token' && principal.account) {
      const own = await this.accounts.findAccount(principal.account.id);
      return { data: own ? [accountView(own, principal.account.role)] : [], has_more: false, next_cursor: null };
    }
    if (principal.personId === undefined || principal.delegation !== undefined) return { data: [], has_more: false, next_cursor: null };
    requireAccountsScope(principal);
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.accounts.accountsOf(
      principal.personId,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    return toPage(
      rows,
      limit,
      (r) => accountView(r.account, r.role),
      (r) => ({ created_at: r.account.createdAt.toISOString(), id: r.account.id }),
    );
  }

  @Get(':account_id')
  @ApiDoc({ tag: 'Connect', summary: 'An account the caller belongs to', errors: [401, 403, 404] })
  @ApiResponseOf(AccountResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('account_id') id: string): Promise<AccountResponse> {
    const role = await roleIn(this.accounts, principal, id);
    return accountView((await this.accounts.findAccount(id))!, role);
  }

  @Patch(':account_id')
  @ApiDoc({ tag: 'Connect', summary: 'Rename an account (admin)', errors: [400, 401, 403, 404] })
  @ApiResponseOf(AccountResponse)
  async rename(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Body() body: AccountBody,
  ): Promise<AccountResponse> {
    const role = await roleIn(this.accounts, principal, id);
    requireRole(role, 'admin');
    return accountView(await this.changeAccount.rename(id, body.name), role);
  }

  @Delete(':account_id')
  @HttpCode(204)
  @ApiDoc({ tag: 'Connect', summary: 'Delete an account (owner; only once it owns no application)', errors: [401, 403, 404, 409] })
  async remove(@CurrentPrincipal() principal: Principal, @Param('account_id') id: string): Promise<void> {
    requireRole(await roleIn(this.accounts, principal, id), 'owner');
    await this.changeAccount.delete(id);
  }

  @Get(':account_id/members')
  @ApiDoc({ tag: 'Connect', summary: "The account's members and their roles (any member)", errors: [400, 401, 403, 404] })
  @ApiResponseOf(AccountMemberResponse, { page: true })
  async listMembers(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<AccountMemberResponse>> {
    await roleIn(this.accounts, principal, id);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['person_id']).person_id : undefined;
    const rows = await this.accounts.listMembers(id, limit + 1, after);
    return toPage(rows, limit, memberView, (m) => ({ person_id: m.personId }));
  }

  @Post(':account_id/members')
  @ApiDoc({ tag: 'Connect', summary: 'Add a person of this region as a member with a role (admin)', errors: [400, 401, 403, 404, 409] })
  @ApiResponseOf(AccountMemberResponse, { status: 201 })
  async addMember(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Body() body: AddMemberBody,
  ): Promise<AccountMemberResponse> {
    const role = await roleIn(this.accounts, principal, id);
    return memberView(await this.members.add(role, id, body.person_id, body.role));
  }

  @Patch(':account_id/members/:person_id')
  @ApiDoc({
    tag: 'Connect',
    summary: "Change a member's role (admin); role owner transfers ownership (owner only; the previous owner becomes admin)",
    errors: [400, 401, 403, 404, 409],
  })
  @ApiResponseOf(AccountMemberResponse)
  async changeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Param('person_id') personId: string,
    @Body() body: ChangeMemberBody,
  ): Promise<AccountMemberResponse> {
    const role = await roleIn(this.accounts, principal, id);
    const caller = principal.kind === 'access_token' ? principal.personId : undefined;
    return memberView(await this.members.changeRole(role, caller, id, personId, body.role));
  }

  @Delete(':account_id/members/:person_id')
  @HttpCode(204)
  @ApiDoc({ tag: 'Connect', summary: 'Remove a member (admin; never the owner)', errors: [401, 403, 404, 409] })
  async removeMember(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Param('person_id') personId: string,
  ): Promise<void> {
    await this.members.remove(await roleIn(this.accounts, principal, id), id, personId);
  }

  @Get(':account_id/account_tokens')
  @ApiDoc({ tag: 'Connect', summary: "The account's tokens, without their secrets (admin)", errors: [400, 401, 403, 404] })
  @ApiResponseOf(AccountTokenResponse, { page: true })
  async listTokens(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Query() query: PageQuery,
  ): Promise<Page<AccountTokenResponse>> {
    requireRole(await roleIn(this.accounts, principal, id), 'admin');
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const rows = await this.accounts.listTokens(id, limit + 1, after ? { createdAt: after.created_at, id: after.id } : undefined);
    return toPage(rows, limit, accountTokenView, (t) => ({ created_at: t.createdAt.toISOString(), id: t.id }));
  }

  /** The token is in this response only; it is stored as a SHA-256 digest. */
  @Post(':account_id/account_tokens')
  @ApiDoc({
    tag: 'Connect',
    summary: 'Issue an account token with a role (admin, developer or auditor; admin); its secret is shown once',
    errors: [400, 401, 403, 404],
  })
  @ApiResponseOf(AccountTokenResponse, { status: 201 })
  async issueToken(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Body() body: IssueAccountTokenBody,
  ): Promise<AccountTokenResponse> {
    const role = await roleIn(this.accounts, principal, id);
    requireRole(role, 'admin');
    // A token never holds more than its issuer.
    requireRole(role, body.role);
    const { token, record } = await this.tokens.issue(id, body.name, body.role);
    return { ...accountTokenView(record), token };
  }

  @Delete(':account_id/account_tokens/:account_token_id')
  @ApiDoc({ tag: 'Connect', summary: 'Revoke an account token at once (admin)', errors: [401, 403, 404] })
  @ApiResponseOf(AccountTokenResponse)
  async revokeToken(
    @CurrentPrincipal() principal: Principal,
    @Param('account_id') id: string,
    @Param('account_token_id') tokenId: string,
  ): Promise<AccountTokenResponse> {
    requireRole(await roleIn(this.accounts, principal, id), 'admin');
    if (tokenId.length > 200)
      throw accountsError('account_token_not_found', 'Account token not found', { account_token_id: tokenId.slice(0, 64) });
    return accountTokenView(await this.tokens.revoke(id, tokenId));
  }
}
