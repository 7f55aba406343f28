import { Injectable } from '@nestjs/common';
import { authError } from './auth.errors';
import type { DelegationContext, Principal } from './principal';

/** Resolves an X-Delegation-Grant-Id presented by a delegate into the principal's context. */
export abstract class DelegationResolver {
  abstract resolve(grantId: string, delegate: Principal): Promise<DelegationContext>;
}

/** Used until delegation grants exist in a deployment: every grant id is unknown (403, never 5xx). */
@Injectable()
export class NoDelegationGrants extends DelegationResolver {
  async resolve(grantId: string): Promise<DelegationContext> {
    throw authError('delegation_grant_not_found', 'Delegation grant not found or not granted to this caller', { grant_id: grantId });
  }
}
