import { Injectable, Optional } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { credentialOfAccessReply } from './access-rpc';
import { ownerUnavailable } from './credential-reply';
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
 * asks decision-gateway of its own region over `gateway.resolve_account_credential` and
 * `gateway.authorize_account` (never another region, never cached). An owner that cannot be asked
 * answers "unknown" (401); its domain refusals (404, 403) reach the caller as they were thrown.
 */
@Injectable()
export class AccountAccessResolver {
  private verifier?: AccountAccessVerifier;

  constructor(@Optional() private readonly rpc?: RpcClient) {}

  register(verifier: AccountAccessVerifier): void {
    this.verifier = verifier;
  }

  get available(): boolean {
    return this.verifier !== undefined;
  }

  async resolveAccountToken(sha256Hex: string): Promise<ResolvedCredential | null> {
    if (this.verifier) return this.verifier.resolveAccountToken(sha256Hex);
    if (!this.rpc) return null;
    try {
      const credential = credentialOfAccessReply(
        await this.rpc.call('gateway.resolve_account_credential', { accountTokenSha256Hex: sha256Hex }),
      );
      return credential?.kind === 'account_token' ? credential : null;
    } catch {
      return null;
    }
  }

  async authorize(actor: AccountActor, applicationId: string, needed: AccountRole): Promise<ResolvedCredential | null> {
    if (this.verifier) return this.verifier.authorize(actor, applicationId, needed);
    if (!this.rpc) return null;
    const request = {
      actor:
        'personId' in actor
          ? { case: 'personId' as const, value: actor.personId }
          : {
              case: 'accountToken' as const,
              value: { accountTokenId: actor.accountTokenId, accountId: actor.accountId, role: actor.role },
            },
      applicationId,
      needed,
    };
    try {
      return credentialOfAccessReply(await this.rpc.call('gateway.authorize_account', request));
    } catch (error) {
      if (ownerUnavailable(error)) return null;
      throw error;
    }
  }

  /** Only the verifier registered in this process (what the account RPC methods answer with). */
  get local(): AccountAccessVerifier | undefined {
    return this.verifier;
  }
}
