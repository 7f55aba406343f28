import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import {
  CreateApplication,
  CreateApplicationCommand,
  type CreatedApplication,
} from '../../applications/use-cases/create-application.use-case';
import { accountsError } from '../accounts.errors';
import { AccountsRepository } from '../accounts.repository';
import { requireRole, roleIn } from '../account-access';

/**
 * Registers an application under an account through the API (the admin CLI stays for operators):
 * an account token of its account, or a member with at least the developer role. The answer holds
 * the first API token (once) and the publishable key: `pk_test_…` for a development (sandbox)
 * application, whose id is `tp_dev_…`; `pk_live_…` for production.
 */
@Injectable()
export class CreateAccountApplication {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly create: CreateApplication,
  ) {}

  async execute(
    principal: Principal,
    accountId: string | undefined,
    command: CreateApplicationCommand,
  ): Promise<CreatedApplication & { accountId: string }> {
    const target = accountId ?? principal.account?.id;
    if (target === undefined) {
      throw accountsError('account_credentials_required', 'Name the account (account_id) or use an account token', { field: 'account_id' });
    }
    requireRole(await roleIn(this.accounts, principal, target), 'developer');
    const created = await this.create.execute(command, { accountId: target, sandboxId: true });
    return { ...created, accountId: target };
  }
}
