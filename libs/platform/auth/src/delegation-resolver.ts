import { Injectable } from '@nestjs/common';
import { authError } from './auth.errors';
import type { DelegationContext, Principal } from './principal';

/** What a request under X-Delegation-Grant-Id asks to do: the API surface and the action on it. */
export interface DelegationTarget {
  /** First path segment after `/api/v1/` (e.g. `me`, `decisions`), or the first path segment elsewhere. */
  surface: string;
  /** `read` for GET and HEAD, `write` otherwise. */
  action: 'read' | 'write';
}

/** Checks delegation grants (the feature that stores them registers one in its process). */
export interface DelegationGrantChecker {
  /**
   * The principal's context when the grant is the delegate's, active, unexpired and covers the
   * target; otherwise throws a coded 403 (`delegation_grant_*`).
   */
  check(grantId: string, delegate: Principal, target: DelegationTarget): Promise<DelegationContext>;
  /**
   * The home region of the delegate a grant of this region names, when it is another region (the
   * issuer of that delegate's access token); undefined otherwise.
   */
  delegateRegionOf?(grantId: string): Promise<string | undefined>;
}

/** Resolves an X-Delegation-Grant-Id presented by a delegate into the principal's context. */
export abstract class DelegationResolver {
  abstract resolve(grantId: string, delegate: Principal, target: DelegationTarget): Promise<DelegationContext>;
  /** The other region whose person a grant of this region names as delegate, if any. */
  abstract delegateRegionOf(grantId: string): Promise<string | undefined>;
}

/**
 * Refuses every grant id (403, never 5xx) until a checker is registered: a process that stores no
 * delegation grants refuses them all.
 */
@Injectable()
export class NoDelegationGrants extends DelegationResolver {
  private checker?: DelegationGrantChecker;

  register(checker: DelegationGrantChecker): void {
    this.checker = checker;
  }

  async resolve(grantId: string, delegate: Principal, target: DelegationTarget): Promise<DelegationContext> {
    if (!this.checker)
      throw authError('delegation_grant_not_found', 'Delegation grant not found or not granted to this caller', {
        grant_id: grantId.slice(0, 100),
      });
    return this.checker.check(grantId, delegate, target);
  }

  async delegateRegionOf(grantId: string): Promise<string | undefined> {
    return this.checker?.delegateRegionOf?.(grantId);
  }
}

/** The surface and action of a request path and method. */
export function delegationTargetOf(method: string, url: string): DelegationTarget {
  const path = url.split('?')[0] ?? '';
  const segments = path.split('/').filter((s) => s.length > 0);
  const surface = segments[0] === 'api' && segments[1] === 'v1' ? (segments[2] ?? '') : (segments[0] ?? '');
  const upper = method.toUpperCase();
  return { surface, action: upper === 'GET' || upper === 'HEAD' ? 'read' : 'write' };
}
