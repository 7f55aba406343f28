import { Inject, Injectable, Optional } from '@nestjs/common';
import type { StampedApplicationFacts } from '@svc/bus';
import { Clock } from '@svc/config';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { ApplicationsRepository } from '../../applications/applications.repository';
import { ComplyService } from '../../comply/comply.service';
import { GATEWAY_OUTBOX } from '../../tokens';
import type { DecisionSession, SessionStatus } from '../decision';
import { mintExchangeToken } from '../decision-tokens';
import type { TransitionBody } from '../decisions.dto';
import { decisionError } from '../decisions.errors';
import { DecisionsRepository } from '../decisions.repository';
import { addVoteOutcomeEvent } from '../outcome-events';
import { aggregate, type Vote } from '../quorum';
import { HOSTED_SIGN_IN, type HostedSignIn } from '../principal-binding';
import { onLockedSession } from '../session-transaction';
import type { SignerProof } from '../signing-outcomes';

/** Answers of each voting kind, and the status each aggregated vote resolves to. */
const VOTING = {
  approval: {
    actions: { approve: 'yes', deny: 'no', counter: 'counter' },
    outcomes: { yes: 'approved', no: 'denied', counter: 'countered' },
  },
  signature_request: {
    actions: { sign: 'yes', decline: 'no', counter: 'counter' },
    outcomes: { yes: 'signed', no: 'declined', counter: 'countered' },
  },
} as const satisfies Record<string, { actions: Record<string, Vote>; outcomes: Record<Vote, SessionStatus> }>;

export interface VoteResult {
  session: DecisionSession;
  /** Issued when this vote resolved the decision; exchanged once server-side. */
  exchangeToken?: string;
}

/**
 * Records one participant's answer to an approval (approve / deny / counter) or a signing
 * decision (sign / decline / counter), then aggregates the quorum (all / majority / threshold).
 * When the outcome is decided the session closes and exactly one event carries the aggregated
 * outcome: approval.granted|denied|countered or signature.signed|declined|countered.
 */
@Injectable()
export class CastVote {
  constructor(
    private readonly sessions: DecisionsRepository,
    @Inject(GATEWAY_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly applications: ApplicationsRepository,
    private readonly comply: ComplyService,
    @Optional() @Inject(HOSTED_SIGN_IN) private readonly hostedSignIn?: HostedSignIn,
  ) {}

  /** `proof.request` is the page's request: an agreement's signer answers only signed in as themselves. */
  async execute(tokenSha256: string, body: TransitionBody, proof: Readonly<Record<string, unknown>> = {}): Promise<VoteResult> {
    const now = this.clock.now();
    return onLockedSession(this.sessions, this.outbox, { tokenSha256, now, refuseExpired: true }, async (manager, session) => {
      if (session.kind === 'consent')
        throw decisionError('transition_not_allowed', `${body.action} does not apply to a consent session`, {
          action: body.action,
          kind: session.kind,
        });
      const voting = VOTING[session.kind];
      const vote = (voting.actions as Record<string, Vote | undefined>)[body.action];
      if (vote === undefined) {
        throw decisionError('transition_not_allowed', `${body.action} does not apply to a ${session.kind} session`, {
          action: body.action,
          kind: session.kind,
        });
      }
      if (session.completedAt !== null) {
        throw decisionError('transition_not_allowed', `The ${session.kind} session is already ${session.status}`, {
          status: session.status,
          action: body.action,
        });
      }
      if (body.principal_id !== undefined || body.evidence !== undefined) {
        throw decisionError('field_not_applicable', 'principal_id and evidence apply to consent sessions', { action: body.action });
      }
      if (body.purposes !== undefined)
        throw decisionError('field_not_applicable', 'purposes applies to completing a consent session', {
          field: 'purposes',
          action: body.action,
        });
      if (vote === 'counter' && body.counter_proposal === undefined)
        throw decisionError('counter_proposal_required', 'counter needs a counter_proposal object', { field: 'counter_proposal' });
      if (vote !== 'counter' && body.counter_proposal !== undefined) {
        throw decisionError('field_not_applicable', 'counter_proposal applies to counter only', {
          field: 'counter_proposal',
          action: body.action,
        });
      }
      const participant = this.participantOf(session, body.participant_id);
      let signer: SignerProof | undefined;
      if (this.sessions.signingOutcomes.requiresSignIn(session)) {
        if (!this.hostedSignIn)
          throw decisionError('transition_not_allowed', 'Signing this agreement needs the signer signed in', { action: body.action });
        await this.hostedSignIn.signedInPrincipal(session, proof);
        if (vote !== 'yes' && body.passkey_assertion !== undefined) {
          throw decisionError('field_not_applicable', 'passkey_assertion applies to sign only', {
            field: 'passkey_assertion',
            action: body.action,
          });
        }
        signer = await this.sessions.signingOutcomes.proveSigner(
          manager,
          session,
          vote,
          body.passkey_assertion as Record<string, unknown> | undefined,
        );
      } else if (body.passkey_assertion !== undefined) {
        throw decisionError('field_not_applicable', 'passkey_assertion applies to signing an agreement', {
          field: 'passkey_assertion',
          action: body.action,
        });
      }
      if (!(await this.sessions.insertVote(manager, session.tokenSha256, participant, vote, body.counter_proposal, now))) {
        throw decisionError('already_voted', `${participant} has already answered this decision`, { participant_id: participant });
      }
      const tally = await this.sessions.tally(manager, session.tokenSha256);
      const outcome = aggregate(tally, session.participants.length, session.quorumRequired ?? session.participants.length);
      if (outcome === undefined) return { session: await this.sessions.update(manager, session.tokenSha256, {}, now) };
      const status = voting.outcomes[outcome];
      const exchange = mintExchangeToken();
      const counterProposal = outcome === 'counter' ? await this.sessions.latestCounterProposal(manager, session.tokenSha256) : undefined;
      const resolved = await this.sessions.update(
        manager,
        session.tokenSha256,
        { status, outcome: status, counterProposal, exchangeTokenSha256: exchange.sha256, completedAt: now },
        now,
      );
      if (!(await this.sessions.signingOutcomes.onResolved(manager, resolved, now, signer))) {
        // Only a standalone approval (one with a session token) becomes a receipt of its own.
        const receipted = resolved.kind === 'approval' && Boolean(resolved.sessionToken);
        const application = receipted ? await this.applicationFacts(manager, resolved.applicationId) : undefined;
        await addVoteOutcomeEvent(this.outbox, manager, resolved, tally, now, application);
      }
      return { session: resolved, exchangeToken: exchange.token };
    });
  }

  /** The application's name and receipt jurisdiction as an approval's event carries them (empty when unknown). */
  private async applicationFacts(manager: EntityManager, applicationId: string): Promise<StampedApplicationFacts> {
    const application = await this.applications.findApplication(applicationId, manager);
    if (!application) return { name: '', jurisdiction: '' };
    const jurisdiction = await this.comply.jurisdiction(applicationId, manager);
    return { name: application.name, jurisdiction: jurisdiction === 'unspecified' ? '' : jurisdiction };
  }

  /** The answering participant: named when several may answer, implied when there is one. */
  private participantOf(session: DecisionSession, participantId: string | undefined): string {
    if (participantId === undefined) {
      const [only, ...others] = session.participants;
      if (only !== undefined && others.length === 0) return only;
      throw decisionError('participant_required', 'participant_id is required: this decision has several participants', {
        field: 'participant_id',
      });
    }
    if (!session.participants.includes(participantId)) {
      throw decisionError('participant_not_allowed', 'participant_id is not a participant of this decision', { field: 'participant_id' });
    }
    return participantId;
  }
}
