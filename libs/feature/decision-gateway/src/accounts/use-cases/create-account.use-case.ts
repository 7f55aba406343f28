import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock, PlatformConfig } from '@svc/config';
import { newRegionalId } from '@svc/ids';
import type { Account } from '../account';
import { accountsError } from '../accounts.errors';
import { AccountsRepository } from '../accounts.repository';
import { requireAccountsScope } from '../account-access';

/** A signed-up person creates an organisation account and becomes its owner. */
@Injectable()
export class CreateAccount {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(principal: Principal, name: string): Promise<Account> {
    // Only a person signs for an account's ownership; a delegate never creates one for someone.
    if (principal.kind !== 'access_token' || principal.personId === undefined || principal.delegation !== undefined) {
      throw accountsError('account_credentials_required', 'An account is created by a person with their own access token', {});
    }
    requireAccountsScope(principal);
    const personId = principal.personId;
    const now = this.clock.now();
    return this.accounts.transaction(async (manager) => {
      const account = await this.accounts.insertAccount(manager, newRegionalId('account', this.config.REGION), name.trim(), now);
      await this.accounts.insertMember(manager, account.id, personId, 'owner', now);
      return account;
    });
  }
}

/** Renames an account (admin) or deletes it (owner; only once it owns no application). */
@Injectable()
export class ChangeAccount {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
  ) {}

  async rename(accountId: string, name: string): Promise<Account> {
    const renamed = await this.accounts.transaction((manager) =>
      this.accounts.renameAccount(manager, accountId, name.trim(), this.clock.now()),
    );
    if (!renamed) throw accountsError('account_not_found', 'Account not found', { account_id: accountId });
    return renamed;
  }

  async delete(accountId: string): Promise<void> {
    await this.accounts.transaction(async (manager) => {
      const applications = await this.accounts.countApplications(manager, accountId);
      if (applications > 0)
        throw accountsError('account_has_applications', "Delete or hand over the account's applications first", {
          account_id: accountId,
          applications,
        });
      await this.accounts.deleteAccount(manager, accountId, this.clock.now());
    });
  }
}
