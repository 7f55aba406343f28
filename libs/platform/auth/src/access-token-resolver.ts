import { Injectable, Optional } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { credentialOfAccessReply } from './access-rpc';
import type { ResolvedCredential } from './principal';

/** Checks a person's OAuth access token (the OpenID provider of the process registers one). */
export interface AccessTokenVerifier {
  /** The credential the token stands for, or null for an unknown, expired, revoked or sender-bound token. */
  verify(token: string): Promise<ResolvedCredential | null>;
}

/**
 * Where the guard looks up OAuth access tokens on routes that accept them
 * (`@Auth(…, 'access_token')`). The OpenID provider of the process registers the verifier; a
 * process that runs none asks decision-gateway of its own region over
 * `gateway.resolve_access_token` (never another region). Answers are not cached, so a revoked
 * token stops working with the revocation; an owner that cannot be asked answers "unknown" (401).
 */
@Injectable()
export class AccessTokenResolver {
  private verifier?: AccessTokenVerifier;

  constructor(@Optional() private readonly rpc?: RpcClient) {}

  register(verifier: AccessTokenVerifier): void {
    this.verifier = verifier;
  }

  async resolve(token: string): Promise<ResolvedCredential | null> {
    if (this.verifier) return this.verifier.verify(token);
    if (!this.rpc) return null;
    try {
      return credentialOfAccessReply(await this.rpc.call('gateway.resolve_access_token', { accessToken: token }));
    } catch {
      return null;
    }
  }

  /**
   * Asks the decision-gateway of another region (the issuer of a delegate's token, named by a
   * delegation grant of this region): the only case where an access token leaves its region, and
   * only to the region that issued it. Unknown (null) when that region cannot be asked.
   */
  async resolveInRegion(token: string, region: string): Promise<ResolvedCredential | null> {
    if (!this.rpc) return null;
    try {
      return credentialOfAccessReply(await this.rpc.inRegion(region).call('gateway.resolve_access_token', { accessToken: token }));
    } catch {
      return null;
    }
  }

  /** Only the verifier registered in this process (what `gateway.resolve_access_token` answers with). */
  async resolveLocally(token: string): Promise<ResolvedCredential | null> {
    return this.verifier ? this.verifier.verify(token) : null;
  }
}
