import { Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { CreatePrincipalAssertionBody } from '../decisions.dto';
import { DEFAULT_ASSERTION_TTL_SECONDS, PrincipalAssertionsRepository, mintPrincipalAssertion } from '../principal-assertions';

/** What the application's server hands to its page. */
export interface IssuedPrincipalAssertion {
  principalAssertion: string;
  principalId: string;
  flowId: string | null;
  expiresAt: Date;
}

/**
 * Issues a principal assertion (POST /api/v1/decisions/principal_assertions): the application's
 * server, holding its secret API token, states who the person on its page is. The page passes the
 * assertion on the publishable-key mint, which consumes it once and binds the session to that
 * person with binding `principal_assertion`. Short-lived and single use, so a leaked page value
 * cannot be replayed into another session; unforgeable because only its digest is stored and only
 * an API token can create one.
 */
@Injectable()
export class IssuePrincipalAssertion {
  constructor(
    private readonly assertions: PrincipalAssertionsRepository,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, body: CreatePrincipalAssertionBody): Promise<IssuedPrincipalAssertion> {
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + (body.ttl_seconds ?? DEFAULT_ASSERTION_TTL_SECONDS) * 1000);
    const { assertion, sha256 } = mintPrincipalAssertion();
    await this.assertions.insert({
      sha256,
      applicationId: principal.applicationId,
      principalId: body.principal_id,
      flowId: body.flow_id ?? null,
      issuedAt: now,
      expiresAt,
    });
    return { principalAssertion: assertion, principalId: body.principal_id, flowId: body.flow_id ?? null, expiresAt };
  }
}
