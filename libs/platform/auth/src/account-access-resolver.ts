import { Injectable } from '@nestjs/common';
import type { AccountRole, ResolvedCredential } from './principal';

/** Prefix of an account token's secret, so the guard knows whom to ask without a lookup. */
export const ACCOUNT_TOKEN_PREFIX = 'acct_';

/** An authenticated account caller before it is tied to an application. */
export type AccountActor = { accountTokenId: string; accountId: string; role: AccountRole } | { personId: string };

/** What the owner of accounts (decision-gateway) answers for account credentials. */
export interface AccountAccessVerifier {
  /** The account token of this SHA-256 digest, or null for an unknown or revoked one. */
  resolveAccountToken(sha256Hex: string): Promise<ResolvedCredential | null>;
  /**
   * The credential the actor holds on `applicationId` when its account owns the application and
   * its role there covers `needed`. Throws the owner's domain error otherwise: an application the
   * actor cannot see answers like an unknown one (404), a visible one with too weak a role 403.
   */
  authorize(actor: AccountActor, applicationId: string, needed: AccountRole): Promise<ResolvedCredential>;
}

/**
 * Where the guard resolves account credentials (account tokens, and a member's access token on
 * routes marked `@AccountAccess`). decision-gateway registers the verifier; a process without it
 * refuses account credentials like any unknown bearer token.
 */
@Injectable()
export class AccountAccessResolver {
  private verifier?: AccountAccessVerifier;

  register(verifier: AccountAccessVerifier): void {
    this.verifier = verifier;
  }

  get available(): boolean {
    return this.verifier !== undefined;
  }

  async resolveAccountToken(sha256Hex: string): Promise<ResolvedCredential | null> {
    return this.verifier ? this.verifier.resolveAccountToken(sha256Hex) : null;
  }

  async authorize(actor: AccountActor, applicationId: string, needed: AccountRole): Promise<ResolvedCredential | null> {
    return this.verifier ? this.verifier.authorize(actor, applicationId, needed) : null;
  }
}
