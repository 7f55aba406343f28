import { Injectable } from '@nestjs/common';
import { ACCOUNT_TOKEN_PREFIX, apiTokenDigest } from '@svc/auth';
import { Clock } from '@svc/config';
import { newApiToken, newId } from '@svc/ids';
import type { AccountTokenRecord, AccountTokenRole } from '../account';
import { accountsError } from '../accounts.errors';
import { AccountsRepository } from '../accounts.repository';

/**
 * Account tokens: server-side credentials of the account itself, with a role of their own (never
 * owner). The secret (`acct_` + 32 random bytes, base64url) is in the answer of issue only; only
 * its SHA-256 digest is stored.
 */
@Injectable()
export class ManageAccountTokens {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly clock: Clock,
  ) {}

  async issue(accountId: string, name: string, role: AccountTokenRole): Promise<{ token: string; record: AccountTokenRecord }> {
    const token = `${ACCOUNT_TOKEN_PREFIX}${newApiToken()}`;
    const record = await this.accounts.transaction((manager) =>
      this.accounts.insertToken(
        manager,
        { id: newId('account_token_record'), accountId, digest: apiTokenDigest(token), name, role },
        this.clock.now(),
      ),
    );
    return { token, record };
  }

  /** Revoked at once: the guard asks for every request (no cache of account tokens). */
  async revoke(accountId: string, tokenId: string): Promise<AccountTokenRecord> {
    const revoked = await this.accounts.transaction((manager) => this.accounts.revokeToken(manager, accountId, tokenId, this.clock.now()));
    if (!revoked) throw accountsError('account_token_not_found', 'Account token not found', { account_token_id: tokenId });
    return revoked;
  }
}
