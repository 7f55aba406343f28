import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { timingSafeEqual } from 'node:crypto';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { DecisionSession } from '../decision';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository } from '../decisions.repository';
import { onLockedSession } from '../session-transaction';
import { tokenDigest } from '../session-token';

function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * POST /api/v1/decisions/:session_token/exchange: the application's server trades the
 * exchange_token from the complete event for the decision outcome, once. The browser's complete
 * event is only a prompt; this answer (or the webhook) is authoritative.
 */
@Injectable()
export class ExchangeDecision {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, tokenSha256: string, exchangeToken: string): Promise<DecisionSession> {
    const now = this.clock.now();
    return onLockedSession(
      this.sessions,
      this.outbox,
      { tokenSha256, applicationId: principal.applicationId, now, refuseExpired: false },
      async (manager, session) => {
        if (session.exchangeTokenSha256 === null) {
          throw decisionError('exchange_not_ready', 'The decision has not completed: there is nothing to exchange yet', {
            status: session.status,
          });
        }
        if (!sameDigest(session.exchangeTokenSha256, tokenDigest(exchangeToken))) {
          throw decisionError('exchange_token_invalid', 'exchange_token does not belong to this session', { field: 'exchange_token' });
        }
        if (!(await this.sessions.markExchanged(manager, tokenSha256, now))) {
          throw decisionError('exchange_token_used', 'The exchange token has already been exchanged');
        }
        return session;
      },
    );
  }
}
