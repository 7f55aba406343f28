import { Injectable } from '@nestjs/common';
import type { ResolvedCredential } from './principal';

/** Checks a person's OAuth access token (the OpenID provider of the process registers one). */
export interface AccessTokenVerifier {
  /** The credential the token stands for, or null for an unknown, expired, revoked or sender-bound token. */
  verify(token: string): Promise<ResolvedCredential | null>;
}

/**
 * Where the guard looks up OAuth access tokens on routes that accept them
 * (`@Auth(…, 'access_token')`). Empty in a process that runs no OpenID provider: such tokens are
 * then refused like any unknown bearer token.
 */
@Injectable()
export class AccessTokenResolver {
  private verifier?: AccessTokenVerifier;

  register(verifier: AccessTokenVerifier): void {
    this.verifier = verifier;
  }

  async resolve(token: string): Promise<ResolvedCredential | null> {
    return this.verifier ? this.verifier.verify(token) : null;
  }
}
