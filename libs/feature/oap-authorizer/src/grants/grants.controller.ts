import { Body, Controller, Get, Req, Res, Post, UseFilters } from '@nestjs/common';
import { ApiDoc, IdParam, ApiResponseOf, OwnIdempotency } from '@svc/server';
import {
  AttestationRefreshedResponse,
  GrantAllowedResponse,
  GrantDeniedResponse,
  GrantEscalatedResponse,
  GrantOversightDeniedResponse,
  GrantWitnessedResponse,
} from './grant-decision.responses';
import { GrantResponse } from './grant.response';
import { CurrentPrincipal, Public, type Principal } from '@svc/auth';
import { PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseAgentMetadata } from '../agents/agent-metadata';
import { oapError } from '../oap.errors';
import { idempotencyKeyOf, replayHeaders } from '../shared/idempotency-store';
import { AgentAuthenticator } from './agent-authenticator';
import type { GrantRequest } from './checks/cascade-step';
import { DpopVerifier } from './dpop';
import { GrantEdgeFilter } from './grant-edge.filter';
import { grantView } from './grant';
import { GrantRequestBody, RefreshAttestationBody } from './grants.dto';
import { AgentEvidenceVerifier } from './evidence/agent-evidence-verifier';
import { RefreshAttestation } from './use-cases/refresh-attestation.use-case';
import { OversightGrant } from './use-cases/oversight-grant.use-case';
import { RequestGrant, type RequestGrantOptions } from './use-cases/request-grant.use-case';

/**
 * `POST /api/v1/grants`. Who authenticates: the application's API token (the integrator's server
 * speaks for its agent) AND a DPoP proof (RFC 9449) made with the agent's key, whose thumbprint
 * must equal `agent_dpop_jkt` — so a token can only ever be bound to a key its requester holds.
 */
@Controller('api/v1/grants')
@UseFilters(GrantEdgeFilter)
export class GrantsController {
  constructor(
    private readonly requestGrant: RequestGrant,
    private readonly oversight: OversightGrant,
    private readonly dpop: DpopVerifier,
    private readonly agentAuth: AgentAuthenticator,
    private readonly evidence: AgentEvidenceVerifier,
    private readonly refresh: RefreshAttestation,
    private readonly config: PlatformConfig,
  ) {}

  @ApiDoc({
    summary:
      'OAP grant request: API token + DPoP proof of agent_dpop_jkt, Idempotency-Key; 201 allow, 202 escalate, 403 deny (denial_category, cascade_step)',
    description:
      "In a hybrid application the agent class (the agent identity's registered agent_type, else `unclassified`) picks the route: classes routed to `conductor` run the cascade; classes routed to `oversight` are decided by the application's OpenID AuthZEN 1.0 policy engine (PUT /api/v1/oap/attestations/policy_engine) and its answer is witnessed: 201 with `route: oversight`, `attestation_id` and `witness_receipt`, or 403 `denial_category: oversight_denied`. The oversight route fails closed: an engine timeout, error or missing configuration is a 403 `policy_engine_unavailable` / `policy_engine_not_configured` with `detail.reason`.",
    tag: 'OAP',
    errors: [400, 401, 403, 404, 409, 422],
    headers: ['Idempotency-Key', 'DPoP'],
    replays: true,
    alsoAnswers: [202],
  })
  @Post()
  @OwnIdempotency(
    'the grant group commit claims the key and stores the answer in the transaction that writes the grant (no extra round trip); the key is required',
  )
  // Decorators apply bottom-up: the cascade's bodies are listed first in the document (and its examples).
  @ApiResponseOf(GrantOversightDeniedResponse, { status: 403 })
  @ApiResponseOf(GrantWitnessedResponse, { status: 201 })
  @ApiResponseOf(GrantAllowedResponse, { status: 201 })
  @ApiResponseOf(GrantEscalatedResponse, { status: 202 })
  @ApiResponseOf(GrantDeniedResponse, { status: 403 })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() body: GrantRequestBody,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const metadata = body.agent_metadata === undefined ? undefined : parseAgentMetadata(body.agent_metadata);
    const attestationBlock = body.agent_attestation === undefined ? undefined : this.evidence.parseAttestationBlock(body.agent_attestation);
    if (body.agent_credential !== undefined) this.evidence.checkCredentialShape(body.agent_credential);
    const idempotencyKey = idempotencyKeyOf(request.headers['idempotency-key']);
    const proof = await this.dpop.verifyDeferringReplay({
      header: request.headers.dpop,
      method: 'POST',
      url: `${this.config.publicBaseUrl}/api/v1/grants`,
    });
    if (proof.jkt !== body.agent_dpop_jkt)
      throw oapError('agent_token_grant_mismatch', 'The DPoP proof key is not agent_dpop_jkt', { reason: 'dpop_key_mismatch' });
    const grantRequest: GrantRequest = {
      applicationId: principal.applicationId,
      agentId: body.agent_id,
      dpopJkt: body.agent_dpop_jkt,
      scopes: body.scope,
      actions: body.actions,
      validUntil: new Date(body.valid_until),
      value: body.value_bounds ? { amount: body.value_bounds.amount_per_action, currency: body.value_bounds.currency } : undefined,
      purpose: body.purpose,
      jurisdiction: body.jurisdiction,
      delegationChain: (body.delegation_chain ?? []).map((h) => ({ ...h })),
      metadata,
    };
    const options: RequestGrantOptions = {
      idempotencyKey,
      requestSha256: sha256Hex(canonicalJson(JSON.parse(JSON.stringify(body)) as Record<string, unknown>)),
      authorityId: body.authority_id,
      dpopReplay: proof.replay,
      prepare:
        body.agent_credential === undefined && attestationBlock === undefined
          ? undefined
          : async () => this.evidence.verify(grantRequest, { credential: body.agent_credential, attestation: attestationBlock }),
    };
    // Hybrid mode: the agent class routed to oversight is decided by the customer's engine.
    const oversightClass = principal.mode === 'hybrid' ? await this.oversight.oversightClassOf(grantRequest) : undefined;
    const response =
      oversightClass === undefined
        ? await this.requestGrant.execute(grantRequest, options)
        : await this.oversight.execute(grantRequest, options, { agentClass: oversightClass, environment: principal.environment });
    void reply
      .status(response.status)
      .headers({ 'cache-control': 'no-store', ...replayHeaders(response) })
      .send(response.body);
  }

  /**
   * Attestation refresh: DPoP-bound agent token of this grant, Idempotency-Key (UUIDv4), body
   * `{agent_attestation}`; answers the new receipt. A grant of another region is 421
   * `grant_region_mismatch` before anything is looked up.
   */
  @ApiDoc({
    summary: 'Refresh the agent attestation of the grant (DPoP-bound agent token, Idempotency-Key UUIDv4)',
    tag: 'OAP',
    errors: [400, 401, 409, 410, 421],
    headers: ['Idempotency-Key', 'DPoP'],
    replays: true,
    agentToken: true,
  })
  @Post(':grant_id/attestation')
  @Public()
  @OwnIdempotency(
    'authenticated by the agent token inside the handler; the key (a UUIDv4, required) is claimed per grant and the answer stored with the refreshed attestation',
  )
  @ApiResponseOf(AttestationRefreshedResponse, { status: 200 })
  async refreshAttestation(
    @IdParam('grant_id', 'oap_grant') grantId: string,
    @Body() body: RefreshAttestationBody,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    this.refresh.assertHomeRegion(grantId);
    const grant = await this.agentAuth.authenticate(request, grantId);
    const key = idempotencyKeyOf(request.headers['idempotency-key'], { uuidV4: true });
    const block = this.evidence.parseAttestationBlock(body.agent_attestation);
    const response = await this.refresh.execute(grant, block, key, sha256Hex(canonicalJson({ agent_attestation: block })));
    void reply
      .status(response.status)
      .headers({ 'cache-control': 'no-store', ...replayHeaders(response) })
      .send(response.body);
  }

  /** The grant as its agent sees it: DPoP-bound agent token, the URL's grant must be the token's. */
  @ApiDoc({
    summary: 'The grant, for its agent (DPoP-bound agent token)',
    tag: 'OAP',
    errors: [401, 410],
    headers: ['DPoP'],
    agentToken: true,
  })
  @Get(':grant_id')
  @Public()
  @ApiResponseOf(GrantResponse)
  async get(@IdParam('grant_id', 'oap_grant') grantId: string, @Req() request: FastifyRequest): Promise<Record<string, unknown>> {
    return grantView(await this.agentAuth.authenticate(request, grantId));
  }
}
