import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { DecisionSession } from '../decision';
import { DecisionsRepository } from '../decisions.repository';
import { onLockedSession } from '../session-transaction';

/** Reads a session as it stands now: a passed deadline is applied first, so reads never show a stale `pending`. */
@Injectable()
export class ReadDecisionSession {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  /** `applicationId` scopes the read (API token); undefined reads by session token alone (decision page). */
  execute(tokenSha256: string, applicationId?: string): Promise<DecisionSession> {
    return onLockedSession(this.sessions, this.outbox, { tokenSha256, applicationId, now: this.clock.now(), refuseExpired: false }, async (_manager, session) => session);
  }
}
