import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import type { OutboxWriter } from '@svc/persistence';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { DecisionSession } from '../decision';
import { DecisionsRepository } from '../decisions.repository';
import { EscalationApprovals } from '../escalation-approvals.consumer';
import { onLockedSession } from '../session-transaction';
import { isEscalationToken, sessionDigest } from '../session-token';

/** Reads a session as it stands now: a passed deadline is applied first, so reads never show a stale `pending`. */
@Injectable()
export class ReadDecisionSession {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly escalations: EscalationApprovals,
  ) {}

  /** `applicationId` scopes the read (API token); undefined reads by session token alone (decision page). */
  execute(tokenSha256: string, applicationId?: string): Promise<DecisionSession> {
    return onLockedSession(
      this.sessions,
      this.outbox,
      { tokenSha256, applicationId, now: this.clock.now(), refuseExpired: false },
      async (_manager, session) => session,
    );
  }

  /**
   * As {@link execute}, by the token itself. An escalation's token (the bare form oap-authorizer
   * mints) may reach here before its oap.approval_requested event: its approval session is then
   * opened on demand, so a decision_url answers as soon as the grant response handed it out.
   */
  async executeByToken(token: string, applicationId?: string): Promise<DecisionSession> {
    const digest = sessionDigest(token);
    try {
      return await this.execute(digest, applicationId);
    } catch (error) {
      if (!isDomainError(error) || error.kind !== 'not_found' || !isEscalationToken(token)) throw error;
      if (!(await this.escalations.openOnDemand(digest, token))) throw error;
      return this.execute(digest, applicationId);
    }
  }

  /**
   * Which session a token names and its kind, for routing a move: one plain read, no lock and no
   * transaction (a session's kind never changes). The move itself applies a passed deadline; a
   * consent move starts from this read and applies only while the session still stands as read.
   * A token not found takes {@link executeByToken} (an escalation's session may be opened on
   * demand; any other answers session_not_found).
   */
  async routeByToken(token: string): Promise<DecisionSession> {
    const found = await this.sessions.find(sessionDigest(token));
    return found ?? this.executeByToken(token);
  }
}
