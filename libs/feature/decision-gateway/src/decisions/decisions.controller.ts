import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { Auth, CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { ApiDoc, ApiResponseOf } from '@svc/server';
import type { FastifyRequest } from 'fastify';
import {
  ConsentTokenVerdictResponse,
  DecisionOutcomeResponse,
  DecisionPageStateResponse,
  DecisionSessionCreatedResponse,
  DecisionSessionResponse,
  DecisionTransitionResponse,
  PrincipalAssertionResponse,
} from './decision.responses';
import type { ConsentAction } from './consent-transitions';
import { CONSENT_ACTIONS } from './consent-transitions';
import { mintedView, pageView, sessionView } from './decision.views';
import { CreateDecisionBody, CreatePrincipalAssertionBody, ExchangeBody, TransitionBody, VerifyConsentTokenBody } from './decisions.dto';
import { sessionDigest } from './session-token';
import { AdvanceConsent } from './use-cases/advance-consent.use-case';
import { CastVote } from './use-cases/cast-vote.use-case';
import { CreateDecisionSession } from './use-cases/create-decision-session.use-case';
import { ExchangeDecision } from './use-cases/exchange-decision.use-case';
import { IssuePrincipalAssertion } from './use-cases/issue-principal-assertion.use-case';
import { ReadDecisionSession } from './use-cases/read-decision-session.use-case';
import { RevokeConsent } from './use-cases/revoke-consent.use-case';
import { VerifyConsentToken, type ConsentTokenVerdict } from './use-cases/verify-consent-token.use-case';

function isConsentAction(action: string): action is ConsentAction {
  return (CONSENT_ACTIONS as readonly string[]).includes(action);
}

/**
 * Decisions API. Server routes take the API token; minting also takes a publishable key (consent
 * only). The two session-token routes (`state`, `transitions`) are what the hosted decision page
 * calls: third-party cookies are blocked in embeds, so the session token in the path is the
 * capability, and they are @Public.
 */
@Controller('api/v1/decisions')
export class DecisionsController {
  constructor(
    private readonly create: CreateDecisionSession,
    private readonly read: ReadDecisionSession,
    private readonly advanceConsent: AdvanceConsent,
    private readonly castVote: CastVote,
    private readonly exchange: ExchangeDecision,
    private readonly revoke: RevokeConsent,
    private readonly verify: VerifyConsentToken,
    private readonly assertions: IssuePrincipalAssertion,
  ) {}

  /** 201 with the kind-uniform session body. */
  @Post()
  @Auth('api_token', 'publishable_key')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Mint a decision session (consent | approval | signature_request)',
    response:
      'decision_session: object, session_token (dts_…), kind, status, decision_url, embed_url (consent; null otherwise), deadline, delivery_mode, flow_id, flow_version, created_at; approval_ttl_at on approvals',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @ApiResponseOf(DecisionSessionCreatedResponse)
  async mint(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreateDecisionBody,
    @Headers('origin') origin: string | undefined,
  ): Promise<Record<string, unknown>> {
    const { session, sessionToken } = await this.create.execute(principal, body, 'decisions', origin);
    return mintedView(session, sessionToken);
  }

  /**
   * The application's server states who the person on its page is; the page passes the returned
   * assertion as `principal_assertion` on its publishable-key mint (single use, short-lived).
   */
  @Post('principal_assertions')
  @Auth('api_token')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Issue a single-use principal assertion for a publishable-key consent session (server side)',
    response: 'principal_assertion: object, principal_assertion (pas_…; single use), principal_id, flow_id (null: any flow), expires_at',
    errors: [400, 401, 403, 421, 422],
  })
  @ApiResponseOf(PrincipalAssertionResponse)
  async issuePrincipalAssertion(
    @CurrentPrincipal() principal: Principal,
    @Body() body: CreatePrincipalAssertionBody,
  ): Promise<Record<string, unknown>> {
    const issued = await this.assertions.execute(principal, body);
    return {
      object: 'principal_assertion',
      principal_assertion: issued.principalAssertion,
      principal_id: issued.principalId,
      flow_id: issued.flowId,
      expires_at: issued.expiresAt.toISOString(),
    } satisfies PrincipalAssertionResponse;
  }

  /** Consent token verification: first one of a fulfilled token is valid and clears it. */
  @Post('consent_tokens/verify')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Verify a consent token (single use, 5 minutes)',
    response: 'valid (boolean), status (fulfilled | expired | revoked)',
  })
  @HttpCode(200)
  @ApiResponseOf(ConsentTokenVerdictResponse)
  async verifyConsentToken(@CurrentPrincipal() principal: Principal, @Body() body: VerifyConsentTokenBody): Promise<ConsentTokenVerdict> {
    return (await this.verify.execute(principal, body.consent_token)) satisfies ConsentTokenVerdictResponse;
  }

  @Get(':session_token')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Read a session (server side)',
    response:
      'decision_session: session_token, kind, status, outcome, decision_url, embed_url, deadline, delivery_mode, embed_origin, flow_id, flow_version, consent_path, purposes, principal_id, principal_binding, trigger_type, reference, quorum, proposal, counter_proposal, created_at, completed_at, exchanged',
  })
  @ApiResponseOf(DecisionSessionResponse)
  async get(@CurrentPrincipal() principal: Principal, @Param('session_token') token: string): Promise<Record<string, unknown>> {
    return sessionView(await this.read.executeByToken(token, principal.applicationId));
  }

  /** Trades the exchange_token once for the decision outcome. */
  @Post(':session_token/exchange')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Exchange the exchange_token for the outcome, once',
    response:
      'decision_outcome: session_token, kind, status, outcome, flow_id, flow_version, purposes, principal_id, principal_binding (api_token | principal_assertion | authority | hosted_sign_in | unbound), reference, counter_proposal, completed_at',
    errors: [400, 401, 403, 404, 409, 421, 422],
  })
  @HttpCode(200)
  @ApiResponseOf(DecisionOutcomeResponse)
  async exchangeToken(
    @CurrentPrincipal() principal: Principal,
    @Param('session_token') token: string,
    @Body() body: ExchangeBody,
  ): Promise<Record<string, unknown>> {
    const session = await this.exchange.execute(principal, sessionDigest(token), body.exchange_token);
    return {
      object: 'decision_outcome',
      session_token: token,
      kind: session.kind,
      status: session.status,
      outcome: session.outcome,
      flow_id: session.flowId,
      flow_version: session.flowVersion,
      purposes: session.kind === 'consent' && session.outcome === 'granted' ? session.purposes : [],
      principal_id: session.principalId,
      principal_binding: session.principalBinding ?? 'unbound',
      reference: session.reference,
      counter_proposal: session.counterProposal,
      completed_at: session.completedAt?.toISOString() ?? null,
    } satisfies DecisionOutcomeResponse;
  }

  /** The application records a withdrawal: fulfilled → revoked, consent.revoked. */
  @Post(':session_token/revoke')
  @ApiDoc({
    tag: 'Decisions',
    summary: 'Record a withdrawal of a fulfilled consent (consent.revoked)',
    response: 'decision_session',
    errors: [400, 401, 403, 404, 409, 421],
  })
  @HttpCode(200)
  @ApiResponseOf(DecisionSessionResponse)
  async revokeConsent(@CurrentPrincipal() principal: Principal, @Param('session_token') token: string): Promise<Record<string, unknown>> {
    return sessionView(await this.revoke.execute(principal, sessionDigest(token)));
  }

  /** Decision page: the session's state and the actions the table allows next. */
  @Get(':session_token/state')
  @ApiDoc({
    tag: 'Decision page',
    summary: 'Session state for the hosted decision page, authorized by the session token',
    response:
      'decision_page_state: object, kind, status, outcome, deadline, delivery_mode, flow_id, flow_version, consent_path, trigger_type, proposal, quorum {type, required, participants}, allowed_actions',
  })
  @Public()
  @ApiResponseOf(DecisionPageStateResponse)
  async state(@Param('session_token') token: string): Promise<Record<string, unknown>> {
    return pageView(await this.read.executeByToken(token));
  }

  /**
   * Decision page: one move. Consent: sign_in, start_checks, review_terms, present_disclosures,
   * capture_evidence, complete, decline, revoke. Approval: approve, deny, counter. Signing: sign,
   * decline, counter. The completing move returns `exchange_token` (and `consent_token` on fulfil).
   */
  @Post(':session_token/transitions')
  @ApiDoc({
    tag: 'Decision page',
    summary: 'One move of the session (authorized by the session token); sign_in binds the person signed in on this browser',
    response:
      'decision_page_state: object, kind, status, outcome, deadline, delivery_mode, flow_id, flow_version, consent_path, trigger_type, proposal, quorum {type, required, participants}, allowed_actions; plus exchange_token when the decision completes and consent_token on fulfilled',
    errors: [400, 401, 403, 404, 409, 410, 421, 422],
  })
  @Public()
  @HttpCode(200)
  @ApiResponseOf(DecisionTransitionResponse)
  async transition(
    @Param('session_token') token: string,
    @Body() body: TransitionBody,
    @Req() request: FastifyRequest,
  ): Promise<Record<string, unknown>> {
    const session = await this.read.routeByToken(token);
    const digest = session.tokenSha256;
    const votes = session.kind !== 'consent';
    const result =
      !votes && isConsentAction(body.action)
        ? await this.advanceConsent.execute(digest, { ...body, action: body.action }, { request: request.raw }, session)
        : await this.castVote.execute(digest, body, { request: request.raw });
    return {
      ...pageView(result.session),
      ...('consentToken' in result && result.consentToken ? { consent_token: result.consentToken } : {}),
      ...(result.exchangeToken ? { exchange_token: result.exchangeToken } : {}),
    } satisfies Omit<DecisionTransitionResponse, keyof DecisionPageStateResponse>;
  }
}
