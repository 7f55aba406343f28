import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { Auth, CurrentPrincipal, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf, DEFAULT_PAGE_SIZE, decodeCursor, toPage, type Page } from '@svc/server';
import { ApplicationResponse, applicationView } from '../applications/application.response';
import { ApplicationsRepository } from '../applications/applications.repository';
import { CreateApplicationCommand } from '../applications/use-cases/create-application.use-case';
import { API_TOKEN_SCOPES } from '@svc/auth';
import { accountsError } from './accounts.errors';
import { CreateApplicationBody, ListApplicationsQuery } from './accounts.dto';
import { AccountsRepository } from './accounts.repository';
import { CreatedApplicationResponse } from './accounts.response';
import { roleIn } from './account-access';
import { CreateAccountApplication } from './use-cases/create-account-application.use-case';

/**
 * Connect: an account's applications, created and listed through the API by an account token or
 * a member (developer to create, any member to list). Each application's own routes
 * (`/api/v1/applications/:application_id/…`) accept the same credentials with role checks.
 */
@Controller('api/v1/applications')
@Auth('access_token', 'account_token')
export class AccountApplicationsController {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly applications: ApplicationsRepository,
    private readonly createApplication: CreateAccountApplication,
  ) {}

  /** The API token is in this response only; it is stored as a SHA-256 digest. */
  @Post()
  @ApiDoc({
    tag: 'Connect',
    summary:
      'Create an application under an account (developer): development gets tp_dev_… and pk_test_…, production pk_live_…; the first API token is shown once',
    errors: [400, 401, 403, 404, 422],
  })
  @ApiResponseOf(CreatedApplicationResponse, { status: 201 })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateApplicationBody): Promise<CreatedApplicationResponse> {
    const command = CreateApplicationCommand.create({
      name: body.name,
      environment: body.environment,
      mode: body.mode,
      logoUrl: body.logo_url,
      brandColor: body.brand_color,
    });
    const created = await this.createApplication.execute(principal, body.account_id, command);
    return {
      application: applicationView(created.application, created.publishableKey) as unknown as ApplicationResponse,
      account_id: created.accountId,
      api_token: {
        id: created.apiTokenId,
        object: 'api_token',
        name: 'initial',
        scopes: [...API_TOKEN_SCOPES],
        created_at: created.application.createdAt.toISOString(),
        revoked_at: null,
        token: created.apiToken,
      },
    };
  }

  @Get()
  @ApiDoc({
    tag: 'Connect',
    summary: "An account's applications (any member or account token); filter by environment",
    errors: [400, 401, 403, 404],
  })
  @ApiResponseOf(ApplicationResponse, { page: true })
  async list(@CurrentPrincipal() principal: Principal, @Query() query: ListApplicationsQuery): Promise<Page<Record<string, unknown>>> {
    const accountId = query.account_id ?? principal.account?.id;
    if (accountId === undefined)
      throw accountsError('account_credentials_required', 'Name the account (account_id) or use an account token', { field: 'account_id' });
    await roleIn(this.accounts, principal, accountId);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const after = query.cursor ? decodeCursor(query.cursor, ['created_at', 'id']) : undefined;
    const ids = await this.accounts.listApplicationIds(
      accountId,
      query.environment,
      limit + 1,
      after ? { createdAt: after.created_at, id: after.id } : undefined,
    );
    const apps = [];
    for (const id of ids) {
      const app = await this.applications.findApplication(id);
      if (app) apps.push({ app, key: await this.applications.currentPublishableKey(id) });
    }
    return toPage(
      apps,
      limit,
      (a) => applicationView(a.app, a.key),
      (a) => ({ created_at: a.app.createdAt.toISOString(), id: a.app.id }),
    );
  }
}
