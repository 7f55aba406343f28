import { Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { DomainError } from '@svc/errors';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify, type JWK } from 'jose';
import { AgentsRepository } from '../agents/agents.repository';
import { AuthoritiesRepository } from '../authorities/authorities.repository';
import type { GrantRequest } from '../grants/checks/cascade-step';
import { DpopVerifier } from '../grants/dpop';
import { GrantIssuer } from '../grants/grant-issuer';
import { grantRequestToJson } from '../grants/grant-request-json';
import { GrantsRepository } from '../grants/grants.repository';
import { INCOMING_JWS_ALGORITHMS } from '../grants/jws-algorithms';
import { ReplayCache } from '../shared/replay-cache';
import { actChainOf, exchangeExpiry, exchangeScope, type ActClaim } from './exchange-rules';

/** Longest life of an actor token, seconds. */
const MAX_ACTOR_TOKEN_AGE_SECONDS = 300;

/** What the OpenID provider verified about the subject token, and what the exchange asks. */
export interface AgentTokenExchange {
  applicationId: string;
  personId: string;
  /**
   * Scopes the subject holds. `undefined` for a person's own access token: the person's delegable
   * scope is then what the person granted this agent (the authority); a delegation grant subject
   * names its own (narrower) scope.
   */
  subjectScopes: string[] | undefined;
  subjectExpiresAt: Date;
  subjectAct: ActClaim | undefined;
  requestedScopes: string[] | undefined;
  actorToken: string;
  dpop: { proof: string; method: string; url: string };
}

/** The exchange's answer: the minted token, or an RFC 6749 §5.2 error code. */
export type AgentTokenOutcome =
  | { ok: true; agentToken: string; grantId: string; scope: string[]; expiresAt: Date; expiresIn: number; act: ActClaim }
  | { ok: false; error: 'invalid_grant' | 'invalid_scope' | 'invalid_request' | 'invalid_dpop_proof'; description: string };

/**
 * RFC 8693 token exchange, oap-authorizer's part: proves the actor (a DPoP proof of this request
 * and an actor token signed with the same key, `sub` = the agent, `aud` = this issuer), finds the
 * person's current authority for the agent, and mints a grant whose `ra_agent_…` token is bound to
 * the proof key, with scope ⊆ subject ∩ the authority's scope bounds and expiry ≤ the subject's.
 */
@Injectable()
export class MintAgentToken {
  constructor(
    private readonly dpop: DpopVerifier,
    private readonly replay: ReplayCache,
    private readonly agents: AgentsRepository,
    private readonly authorities: AuthoritiesRepository,
    private readonly grants: GrantsRepository,
    private readonly issuer: GrantIssuer,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  async execute(input: AgentTokenExchange): Promise<AgentTokenOutcome> {
    const now = this.clock.now();
    if (input.subjectExpiresAt.getTime() <= now.getTime()) return refuse('invalid_grant', 'the subject token has expired');
    let jkt: string;
    try {
      ({ jkt } = await this.dpop.verify({ header: input.dpop.proof || undefined, method: input.dpop.method, url: input.dpop.url }));
    } catch (error) {
      if (error instanceof DomainError) return refuse('invalid_dpop_proof', error.message);
      throw error;
    }
    const actor = await this.verifyActor(input.actorToken, jkt, now);
    if (!actor.ok) return actor;
    const agent = await this.agents.find(actor.agentId);
    if (!agent || agent.applicationId !== input.applicationId || agent.status !== 'active')
      return refuse('invalid_grant', 'the actor is not an active agent of this application');
    const authority = (await this.authorities.currentForAgent(agent.id, 16)).find(
      (candidate) =>
        candidate.status === 'active' &&
        candidate.principalId === input.personId &&
        candidate.applicationId === input.applicationId &&
        candidate.validUntil > now,
    );
    if (!authority) return refuse('invalid_grant', 'the person has granted this agent no current authority');
    const requested = input.requestedScopes;
    const subject = input.subjectScopes ?? requested ?? literalScopes(authority.bounds.scope_bounds?.allowed);
    const scope = exchangeScope({ requested, subject, bounds: authority.bounds.scope_bounds });
    if (scope.length === 0) return refuse('invalid_scope', 'no requested scope is held by the subject and allowed by the authority');
    if (requested && requested.some((wanted) => !scope.includes(wanted)))
      return refuse('invalid_scope', 'a requested scope exceeds the subject or the authority');
    const act = actChainOf(agent.id, input.subjectAct);
    if (!act) return refuse('invalid_grant', 'the delegation chain is too deep');
    const expiresAt = exchangeExpiry({ now, subjectExpiresAt: input.subjectExpiresAt, authorityValidUntil: authority.validUntil });
    const request: GrantRequest = {
      applicationId: input.applicationId,
      agentId: agent.id,
      dpopJkt: jkt,
      scopes: scope,
      actions: authority.bounds.action_bounds?.allowed ?? [],
      validUntil: expiresAt,
      delegationChain: [],
    };
    const contextHash = sha256Hex(canonicalJson({ ...grantRequestToJson(request), token_exchange: { person_id: input.personId, act } }));
    const issued = await this.grants.transaction((manager) => this.issuer.issue(manager, { request, authority, now, contextHash }));
    return {
      ok: true,
      agentToken: issued.agentToken,
      grantId: issued.grant.id,
      scope,
      expiresAt,
      expiresIn: Math.floor((expiresAt.getTime() - now.getTime()) / 1000),
      act,
    };
  }

  /** The actor token: signed by the DPoP key itself, `sub` the agent, `aud` this issuer, fresh and unused. */
  private async verifyActor(
    token: string,
    jkt: string,
    now: Date,
  ): Promise<{ ok: true; agentId: string } | Extract<AgentTokenOutcome, { ok: false }>> {
    let payload: Record<string, unknown>;
    try {
      const jwk = decodeProtectedHeader(token).jwk as JWK | undefined;
      if (!jwk || (await calculateJwkThumbprint(jwk, 'sha256')) !== jkt)
        return refuse('invalid_grant', 'the actor token is not signed with the DPoP key');
      ({ payload } = await jwtVerify(token, EmbeddedJWK, {
        algorithms: INCOMING_JWS_ALGORITHMS,
        audience: this.config.publicBaseUrl,
        currentDate: now,
        clockTolerance: 60,
        requiredClaims: ['sub', 'iat', 'exp', 'jti'],
      }));
    } catch {
      return refuse('invalid_grant', 'the actor token is not valid');
    }
    const { sub, iat, exp, jti } = payload as { sub: unknown; iat: number; exp: number; jti: unknown };
    if (typeof sub !== 'string' || typeof jti !== 'string' || exp - iat > MAX_ACTOR_TOKEN_AGE_SECONDS)
      return refuse('invalid_grant', 'the actor token is not valid');
    if (!(await this.replay.firstUse('agent_credential', `actor.${jkt}.${jti}`, new Date(exp * 1000 + 60_000), now)))
      return refuse('invalid_grant', 'the actor token was already used');
    return { ok: true, agentId: sub };
  }
}

function refuse(error: Extract<AgentTokenOutcome, { ok: false }>['error'], description: string): Extract<AgentTokenOutcome, { ok: false }> {
  return { ok: false, error, description };
}

/** The allowed scopes that name one scope (no wildcard). */
function literalScopes(allowed: readonly string[] | undefined): string[] {
  return (allowed ?? []).filter((scope) => !scope.endsWith('*'));
}
