import { Inject, Injectable, Optional } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Clock } from '@svc/config';
import { isDomainError } from '@svc/errors';
import { claimAwaitingMark, type OutboxWriter, type PendingEvent } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { GATEWAY_OUTBOX } from '../../tokens';
import { nextConsentStatus, type ConsentAction } from '../consent-transitions';
import { CONSENT_TOKEN_TTL_MS, type ConsentStatus, type DecisionSession } from '../decision';
import { mintConsentToken, mintExchangeToken } from '../decision-tokens';
import type { TransitionBody } from '../decisions.dto';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository, type SessionPatch } from '../decisions.repository';
import { FlowLookup } from '../flow-lookup';
import { HOSTED_SIGN_IN, type HostedSignIn } from '../principal-binding';
import { onLockedSession } from '../session-transaction';
import { revokeFulfilledConsent } from './revoke-consent.use-case';

/** The event's `principal_binding`: how the server bound the person, or `unbound`. */
function principalBindingOf(session: DecisionSession): string {
  return session.principalId !== null && session.principalBinding !== null ? session.principalBinding : 'unbound';
}

/** consent_session.granted of a session fulfilled at `now`, with its consent token. */
function grantedEvent(session: DecisionSession, consentToken: string, now: Date): PendingEvent {
  return {
    type: 'consent_session.granted',
    init: {
      sessionToken: session.sessionToken ?? '',
      flowId: session.flowId ?? '',
      flowVersion: session.flowVersion ?? 0,
      consentToken,
      userIdentifier: session.principalId ?? '',
      purposes: session.purposes,
      fulfilledAt: timestampFromDate(now),
      deliveryMode: session.deliveryMode,
      principalBinding: principalBindingOf(session),
    },
    context: { applicationId: session.applicationId, occurredAt: now },
  };
}

/** consent_session.denied of a session declined at `now`. */
function deniedEvent(session: DecisionSession, now: Date): PendingEvent {
  return {
    type: 'consent_session.denied',
    init: {
      sessionToken: session.sessionToken ?? '',
      flowId: session.flowId ?? '',
      flowVersion: session.flowVersion ?? 0,
      userIdentifier: session.principalId ?? '',
      declinedAt: timestampFromDate(now),
      deliveryMode: session.deliveryMode,
      principalBinding: principalBindingOf(session),
    },
    context: { applicationId: session.applicationId, occurredAt: now },
  };
}

/** What a move writes, decided on the session as it stands (see AdvanceConsent.plan). */
type MovePlan = { kind: 'move'; patch: SessionPatch } | { kind: 'fulfil'; granted: string[] } | { kind: 'decline' } | { kind: 'revoke' };

/** What a consent move returns to the decision page (and through it, the host page). */
export interface ConsentMoveResult {
  session: DecisionSession;
  /** Issued on `complete` (fulfilled): single use, valid 5 minutes. */
  consentToken?: string;
  /** Issued when the decision completes (fulfilled or declined); exchanged once server-side. */
  exchangeToken?: string;
}

/**
 * Moves a consent session along the spec's transition table (standard or informed-consent path),
 * authorized by the session token. A move the table does not have is refused with
 * transition_not_allowed and nothing is written. `complete` issues the consent token and
 * publishes consent.granted; `decline` publishes consent.denied; `revoke` consent.revoked. The
 * page never names the person (`principal_id` is refused): the events carry the person the server
 * bound and how (`principal_binding`), or `unbound`, for which no consent record is written.
 */
@Injectable()
export class AdvanceConsent {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly flows: FlowLookup,
    @Optional() @Inject(HOSTED_SIGN_IN) private readonly hostedSignIn?: HostedSignIn,
  ) {}

  /**
   * `proof` is what the page's request carries of a sign-in (the request itself, for the sign-in
   * cookie); with a {@link HostedSignIn} adapter, `sign_in` binds an unbound session to the person
   * it proves (`hosted_sign_in`), and the adapter refuses the move when the flow requires a sign-in
   * that is missing or a bound person's sign-in that does not match.
   */
  async execute(
    tokenSha256: string,
    body: TransitionBody & { action: ConsentAction },
    proof: Readonly<Record<string, unknown>> = {},
    seen?: DecisionSession,
  ): Promise<ConsentMoveResult> {
    const now = this.clock.now();
    // A request holding an Idempotency-Key claim to mark moves in a transaction, which carries the mark.
    if (seen !== undefined && seen.tokenSha256 === tokenSha256 && !claimAwaitingMark()) {
      const moved = await this.moveAsSeen(seen, body, proof, now);
      if (moved) return moved;
    }
    return onLockedSession(
      this.sessions,
      this.outbox,
      { tokenSha256, now, refuseExpired: body.action !== 'revoke' },
      async (manager, session) => {
        const plan = await this.plan(session, body, proof);
        switch (plan.kind) {
          case 'revoke':
            return { session: await revokeFulfilledConsent(this.sessions, this.outbox, manager, session, 'principal', now) };
          case 'fulfil':
            return this.fulfil(manager, session, now, plan.granted);
          case 'decline':
            return this.decline(manager, session, now);
          case 'move':
            return { session: await this.sessions.update(manager, session.tokenSha256, plan.patch, now) };
        }
      },
    );
  }

  /**
   * The move on the session as the route read it (`seen`), without a lock or a transaction: one
   * conditional statement, which applies only while the session still stands as read and is open
   * (see {@link DecisionsRepository.updateIfUnchanged}); the consent token and the event of a
   * completing move are written by that same statement. Undefined leaves the move to the locked
   * path, which decides it on the session as it then stands, exactly as it always did: when the
   * session read is past its deadline (the locked path records the expiry and answers
   * session_expired), when the move is refused on the read (the table, the body's fields, the
   * sign-in), on a revoke, and when the session changed since it was read (a concurrent move
   * applied first: the locked path then answers transition_not_allowed, or session_expired).
   */
  private async moveAsSeen(
    seen: DecisionSession,
    body: TransitionBody & { action: ConsentAction },
    proof: Readonly<Record<string, unknown>>,
    now: Date,
  ): Promise<ConsentMoveResult | undefined> {
    if (seen.kind !== 'consent' || body.action === 'revoke' || seen.completedAt !== null || seen.deadline.getTime() <= now.getTime())
      return undefined;
    let plan: MovePlan;
    try {
      plan = await this.plan(seen, body, proof);
    } catch (error) {
      if (isDomainError(error)) return undefined;
      throw error;
    }
    switch (plan.kind) {
      case 'revoke':
        return undefined;
      case 'move': {
        const updated = await this.sessions.updateIfUnchanged(seen.tokenSha256, seen, plan.patch, now);
        return updated && { session: updated };
      }
      case 'fulfil': {
        const consent = mintConsentToken();
        const exchange = mintExchangeToken();
        const after: DecisionSession = { ...seen, status: 'fulfilled', outcome: 'granted', purposes: plan.granted };
        const updated = await this.sessions.updateIfUnchanged(
          seen.tokenSha256,
          seen,
          { status: 'fulfilled', outcome: 'granted', exchangeTokenSha256: exchange.sha256, completedAt: now, purposes: plan.granted },
          now,
          {
            consentToken: { sha256: consent.sha256, issuedAt: now, expiresAt: new Date(now.getTime() + CONSENT_TOKEN_TTL_MS) },
            events: (firstParam) => this.outbox.batchInsert([grantedEvent(after, consent.token, now)], firstParam),
          },
        );
        if (!updated) return undefined;
        this.outbox.written();
        return { session: updated, consentToken: consent.token, exchangeToken: exchange.token };
      }
      case 'decline': {
        const exchange = mintExchangeToken();
        const after: DecisionSession = { ...seen, status: 'expired', outcome: 'declined' };
        const updated = await this.sessions.updateIfUnchanged(
          seen.tokenSha256,
          seen,
          { status: 'expired', outcome: 'declined', exchangeTokenSha256: exchange.sha256, completedAt: now },
          now,
          { events: (firstParam) => this.outbox.batchInsert([deniedEvent(after, now)], firstParam) },
        );
        if (!updated) return undefined;
        this.outbox.written();
        return { session: updated, exchangeToken: exchange.token };
      }
    }
  }

  /**
   * What `body` asks of `session` as it stands: checked against the spec's transition table and
   * the body's fields, the sign-in asked of the adapter, the chosen purposes against the flow.
   * Throws the refusal.
   */
  private async plan(
    session: DecisionSession,
    body: TransitionBody & { action: ConsentAction },
    proof: Readonly<Record<string, unknown>>,
  ): Promise<MovePlan> {
    const from = session.status as ConsentStatus;
    const path = session.consentPath ?? 'standard';
    const to = nextConsentStatus(from, body.action, path);
    if (to === undefined) {
      throw decisionError('transition_not_allowed', `No ${body.action} move from ${from} on the ${path} path`, {
        status: from,
        action: body.action,
        consent_path: path,
      });
    }
    if (body.participant_id !== undefined || body.counter_proposal !== undefined || body.passkey_assertion !== undefined) {
      throw decisionError(
        'field_not_applicable',
        'participant_id, counter_proposal and passkey_assertion apply to approval and signing sessions',
        { action: body.action },
      );
    }
    if (body.evidence !== undefined && body.action !== 'capture_evidence') {
      throw decisionError('field_not_applicable', 'evidence applies to capture_evidence only', {
        field: 'evidence',
        action: body.action,
      });
    }
    if (body.principal_id !== undefined) {
      throw decisionError(
        'principal_not_settable',
        'The decision page cannot name or change the person; the application binds it server-side',
        { field: 'principal_id' },
      );
    }
    if (body.purposes !== undefined && body.action !== 'complete') {
      throw decisionError('field_not_applicable', 'purposes applies to complete only', { field: 'purposes', action: body.action });
    }
    if (body.action === 'revoke') return { kind: 'revoke' };
    if (to === 'fulfilled')
      return {
        kind: 'fulfil',
        granted: body.purposes === undefined ? session.purposes : await this.chosenPurposes(session, body.purposes),
      };
    if (body.action === 'decline') return { kind: 'decline' };
    if (body.action === 'sign_in' && this.hostedSignIn) {
      const signedIn = await this.hostedSignIn.signedInPrincipal(session, proof);
      if (signedIn !== null && session.principalBinding === null)
        return { kind: 'move', patch: { status: to, principal: { id: signedIn, binding: 'hosted_sign_in' } } };
    }
    return { kind: 'move', patch: { status: to, evidence: body.evidence } };
  }

  /**
   * The purposes a person granted by choosing: each a purpose the session showed, including every
   * purpose the flow fixes on another lawful basis, and at least one (refusing all is a decline).
   */
  private async chosenPurposes(session: DecisionSession, chosen: readonly string[]): Promise<string[]> {
    const shown = new Set(session.purposes);
    const unknown = chosen.find((key) => !shown.has(key));
    if (unknown !== undefined)
      throw decisionError('purpose_not_in_flow', `"${unknown}" is not a purpose of this session's flow version`, {
        field: 'purposes',
        purpose: unknown,
      });
    const fixed = session.flowId ? await this.flows.fixedPurposes(session.applicationId, session.flowId, session.flowVersion ?? 0) : [];
    const missing = fixed.find((key) => !chosen.includes(key));
    if (missing !== undefined)
      throw decisionError('required_purpose_missing', `"${missing}" is required by the flow and must be listed`, {
        field: 'purposes',
        purpose: missing,
      });
    if (chosen.length === 0)
      throw decisionError('no_purpose_granted', 'purposes is empty: refusing every purpose is the decline action', { field: 'purposes' });
    // Kept in the order the flow shows them.
    return session.purposes.filter((key) => chosen.includes(key));
  }

  private async fulfil(manager: EntityManager, session: DecisionSession, now: Date, granted: string[]): Promise<ConsentMoveResult> {
    const consent = mintConsentToken();
    const exchange = mintExchangeToken();
    const updated = await this.sessions.update(
      manager,
      session.tokenSha256,
      { status: 'fulfilled', outcome: 'granted', exchangeTokenSha256: exchange.sha256, completedAt: now, purposes: granted },
      now,
    );
    await this.sessions.insertConsentToken(manager, {
      sha256: consent.sha256,
      sessionSha256: session.tokenSha256,
      applicationId: session.applicationId,
      issuedAt: now,
      expiresAt: new Date(now.getTime() + CONSENT_TOKEN_TTL_MS),
    });
    await this.outbox.addMany(manager, [grantedEvent(updated, consent.token, now)]);
    return { session: updated, consentToken: consent.token, exchangeToken: exchange.token };
  }

  private async decline(manager: EntityManager, session: DecisionSession, now: Date): Promise<ConsentMoveResult> {
    const exchange = mintExchangeToken();
    const updated = await this.sessions.update(
      manager,
      session.tokenSha256,
      { status: 'expired', outcome: 'declined', exchangeTokenSha256: exchange.sha256, completedAt: now },
      now,
    );
    await this.outbox.addMany(manager, [deniedEvent(updated, now)]);
    return { session: updated, exchangeToken: exchange.token };
  }
}
