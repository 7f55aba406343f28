import { Inject, Injectable } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Principal } from '@svc/auth';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { DecisionSession } from '../decision';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository } from '../decisions.repository';
import { onLockedSession } from '../session-transaction';

/**
 * fulfilled → revoked (spec: "user withdraws later, any time"): publishes consent_session.revoked (webhook consent.revoked) so the
 * application stops the data use. The session row must be locked by the caller.
 */
export async function revokeFulfilledConsent(
  repo: DecisionsRepository,
  outbox: OutboxWriter,
  manager: EntityManager,
  session: DecisionSession,
  revokedBy: 'principal' | 'application',
  now: Date,
): Promise<DecisionSession> {
  if (session.kind !== 'consent' || session.status !== 'fulfilled') {
    throw decisionError('transition_not_allowed', `No revoke move from ${session.status}`, { status: session.status, action: 'revoke' });
  }
  const revoked = await repo.update(manager, session.tokenSha256, { status: 'revoked' }, now);
  await outbox.add(
    manager,
    'consent_session.revoked',
    {
      sessionToken: revoked.sessionToken ?? '',
      flowId: revoked.flowId ?? '',
      flowVersion: revoked.flowVersion ?? 0,
      userIdentifier: revoked.principalId ?? '',
      revokedAt: timestampFromDate(now),
      revokedBy,
    },
    { applicationId: revoked.applicationId, occurredAt: now },
  );
  return revoked;
}

/** POST /api/v1/decisions/:session_token/revoke: the application records a withdrawal it received. */
@Injectable()
export class RevokeConsent {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, tokenSha256: string): Promise<DecisionSession> {
    const now = this.clock.now();
    return onLockedSession(
      this.sessions,
      this.outbox,
      { tokenSha256, applicationId: principal.applicationId, now, refuseExpired: false },
      (manager, session) => revokeFulfilledConsent(this.sessions, this.outbox, manager, session, 'application', now),
    );
  }
}
