import { Module } from '@nestjs/common';
import { OutboxRegistry } from '@svc/server';
import { ApplicationsRepository } from '../applications/applications.repository';
import { ComplyRepository } from '../comply/comply.repository';
import { ComplyService } from '../comply/comply.service';
import { PeopleModule } from '../people/people.module';
import { GATEWAY_SCHEMA } from '../schema';
import { GATEWAY_OUTBOX } from '../tokens';
import { ConsentSessionsController } from './consent-sessions.controller';
import { DecisionsController } from './decisions.controller';
import { DecisionsRepository } from './decisions.repository';
import { DeprecatedAliasHeaders } from './deprecated-alias.interceptor';
import { EscalationApprovalRequests, EscalationApprovals } from './escalation-approvals.consumer';
import { FlowLookup } from './flow-lookup';
import { InboxController } from './inbox.controller';
import { PrincipalAssertionsRepository } from './principal-assertions';
import { SigningOutcomes } from './signing-outcomes';
import { AdvanceConsent } from './use-cases/advance-consent.use-case';
import { CastVote } from './use-cases/cast-vote.use-case';
import { CreateDecisionSession } from './use-cases/create-decision-session.use-case';
import { ExchangeDecision } from './use-cases/exchange-decision.use-case';
import { ExpireDueSessions } from './use-cases/expire-due-sessions.use-case';
import { IssuePrincipalAssertion } from './use-cases/issue-principal-assertion.use-case';
import { ReadDecisionSession } from './use-cases/read-decision-session.use-case';
import { RevokeConsent } from './use-cases/revoke-consent.use-case';
import { VerifyConsentToken } from './use-cases/verify-consent-token.use-case';

/**
 * Decision sessions (consent, approval, signature_request): minting, the consent_sessions alias,
 * the session-driving API of the hosted page, consent tokens, exchange, expiry, the inbox, and the
 * approval sessions of escalations.
 */
@Module({
  imports: [PeopleModule],
  controllers: [DecisionsController, ConsentSessionsController, InboxController, EscalationApprovalRequests],
  providers: [
    { provide: GATEWAY_OUTBOX, useFactory: (registry: OutboxRegistry) => registry.writer(GATEWAY_SCHEMA), inject: [OutboxRegistry] },
    DecisionsRepository,
    // An approval's outcome event carries the application's name and receipt jurisdiction.
    ApplicationsRepository,
    ComplyRepository,
    ComplyService,
    SigningOutcomes,
    FlowLookup,
    PrincipalAssertionsRepository,
    IssuePrincipalAssertion,
    DeprecatedAliasHeaders,
    CreateDecisionSession,
    ReadDecisionSession,
    AdvanceConsent,
    CastVote,
    ExchangeDecision,
    RevokeConsent,
    VerifyConsentToken,
    ExpireDueSessions,
    EscalationApprovals,
  ],
  exports: [CreateDecisionSession, ExpireDueSessions, EscalationApprovals, DecisionsRepository, SigningOutcomes],
})
export class DecisionsModule {}
