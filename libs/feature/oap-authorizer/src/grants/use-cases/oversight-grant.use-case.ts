import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { RpcClient } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import type { OutboxWriter } from '@svc/persistence';
import type { Agent } from '../../agents/agent';
import { OAP_VERSION } from '../../schema';
import { IdempotencyStore, type StoredResponse } from '../../shared/idempotency-store';
import { ReplayCache } from '../../shared/replay-cache';
import { OAP_OUTBOX } from '../../tokens';
import type { GrantRequest } from '../checks/cascade-step';
import { dpopReplayedError } from '../dpop';
import type { GrantOversightDeniedResponse, GrantWitnessedResponse, OversightDenialReason } from '../grant-decision.responses';
import { grantRequestToJson } from '../grant-request-json';
import { GrantsRepository } from '../grants.repository';
import { GRANTS_IDEMPOTENCY_SCOPE, type RequestGrantOptions } from './request-grant.use-case';

/** The agent class of an agent without a registered `agent_type`. */
export const UNCLASSIFIED_AGENT_CLASS = 'unclassified';

/**
 * How long the gateway waits for oversight-witness to have the engine decide, ms: the longest
 * engine deadline per action (10 s) for every action, plus the witnessing. Past it the request
 * is denied (`policy_engine_unavailable`, reason `witness_unavailable`).
 */
export function engineRpcTimeoutMs(actions: number): number {
  return 10_000 * Math.max(1, actions) + 5_000;
}

/**
 * The agent class Hybrid mode routes by: the agent identity's registered `agent_type` (the
 * closed taxonomy: assistant, retrieval, coding, domain_specific, autonomous, supervised), or
 * `unclassified`. Taken from the registration, never from the request body, so a request cannot
 * pick its own route.
 */
export function agentClassOf(agent: Agent): string {
  return agent.metadata?.agent_type ?? UNCLASSIFIED_AGENT_CLASS;
}

/**
 * `POST /api/v1/grants` of a hybrid application for an agent class routed to `oversight`: the
 * customer's policy engine decides instead of the cascade. oversight-witness calls the engine
 * (OpenID AuthZEN 1.0, through the egress policy, with the engine's timeout) and witnesses its
 * answer as an attestation with a witness receipt (`oversight.evaluate_grant`).
 *
 * Answers: allow → 201 `{decision: allow, route: oversight, attestation_id, witness_receipt, …}`
 * (no agent token: the customer's engine, not the service, authorizes; the witness receipt is the
 * proof); deny → 403 with `denial_category` `oversight_denied` and `reason_code`
 * `policy_engine_denied` (witnessed too). Fails closed: an engine that times out, cannot be
 * reached or answers nonsense, no engine configured, or oversight-witness not answering in time
 * → 403 `oversight_denied` with `policy_engine_unavailable` / `policy_engine_not_configured` and
 * `detail.reason`, nothing witnessed. Same `Idempotency-Key` and DPoP replay rules as the cascade
 * path: the stored answer is replayed, the engine is not asked twice. Every decision is recorded
 * (`oap.decisions`, `grant.decided`).
 */
@Injectable()
export class OversightGrant {
  constructor(
    private readonly grants: GrantsRepository,
    private readonly idempotency: IdempotencyStore,
    private readonly replay: ReplayCache,
    private readonly rpc: RpcClient,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /**
   * The agent class of a hybrid application's request when its route is `oversight`; undefined
   * when the cascade decides (the class is routed to conductor, or the agent is unknown here or
   * suspended — the cascade then refuses it as it refuses any such agent).
   */
  async oversightClassOf(request: GrantRequest): Promise<string | undefined> {
    const agent = (await this.grants.agentSnapshots([request.agentId])).get(request.agentId);
    if (!agent || agent.agent.applicationId !== request.applicationId || agent.agent.status !== 'active') return undefined;
    const agentClass = agentClassOf(agent.agent);
    const route = await this.rpc.call('oversight.agent_class_route', { applicationId: request.applicationId, agentClass });
    return route.route === 'oversight' ? agentClass : undefined;
  }

  async execute(
    request: GrantRequest,
    options: RequestGrantOptions,
    input: { agentClass: string; environment: 'development' | 'production' },
  ): Promise<StoredResponse> {
    const now = this.clock.now();
    if (options.dpopReplay && !(await this.replay.firstUse('dpop', options.dpopReplay.value, options.dpopReplay.expiresAt, now)))
      throw dpopReplayedError();
    const claim = await this.idempotency.claim(
      request.applicationId,
      GRANTS_IDEMPOTENCY_SCOPE,
      options.idempotencyKey,
      options.requestSha256,
    );
    if (claim.state === 'replay') return claim.response;
    try {
      // Evidence the request carries (agent credential, attestation) is verified as on the cascade path.
      if (options.prepare) await options.prepare();
      const response = await this.decide(request, options, input);
      const contextHash = sha256Hex(canonicalJson(grantRequestToJson(request)));
      await this.grants.transaction(async (manager) => {
        await this.record(manager, request, options, response, contextHash);
        await this.idempotency.completeMany(manager, GRANTS_IDEMPOTENCY_SCOPE, [
          { applicationId: request.applicationId, key: options.idempotencyKey, response },
        ]);
      });
      return response;
    } catch (error) {
      await this.idempotency.release(request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey);
      throw error;
    }
  }

  private async decide(
    request: GrantRequest,
    options: RequestGrantOptions,
    input: { agentClass: string; environment: 'development' | 'production' },
  ): Promise<StoredResponse> {
    let reply;
    try {
      reply = await this.rpc.call(
        'oversight.evaluate_grant',
        {
          applicationId: request.applicationId,
          environment: input.environment,
          agentClass: input.agentClass,
          agentId: request.agentId,
          scopes: request.scopes,
          actions: request.actions,
          amount: request.value?.amount ?? '',
          currency: request.value?.currency ?? '',
          purpose: request.purpose ?? '',
          jurisdiction: request.jurisdiction ?? '',
          validUntil: request.validUntil.toISOString(),
          authorityId: options.authorityId ?? '',
          requestId: randomUUID(),
        },
        engineRpcTimeoutMs(request.actions.length),
      );
    } catch {
      // oversight-witness did not answer (or refused): nobody decided, so nothing is allowed.
      return denied('policy_engine_unavailable', 'The policy engine could not decide the request', { reason: 'witness_unavailable' });
    }
    if (reply.outcome === 'allow') {
      return {
        status: 201,
        body: {
          decision: 'allow',
          route: 'oversight',
          attestation_id: reply.attestationId,
          witness_receipt: reply.receipt,
          sequence_number: Number(reply.sequenceNumber),
          policy_ref: reply.policyRef,
          iss: this.config.publicBaseUrl,
          oap_ver: OAP_VERSION,
          valid_until: request.validUntil.toISOString(),
        } satisfies GrantWitnessedResponse,
      };
    }
    if (reply.outcome === 'deny') {
      return denied('policy_engine_denied', "The application's policy engine denied the request", {
        attestation_id: reply.attestationId,
        witness_receipt: reply.receipt,
      });
    }
    if (reply.outcome === 'not_configured') {
      return denied('policy_engine_not_configured', "The agent class is routed to the application's policy engine, but none is ready", {
        reason: reply.reason,
      });
    }
    return denied('policy_engine_unavailable', 'The policy engine could not decide the request', { reason: reply.reason });
  }

  private async record(
    manager: Parameters<Parameters<GrantsRepository['transaction']>[0]>[0],
    request: GrantRequest,
    options: RequestGrantOptions,
    response: StoredResponse,
    contextHash: string,
  ): Promise<void> {
    const body = response.body as { decision?: string; reason_code?: string; witness_receipt?: string };
    const now = this.clock.now();
    const decision = body.decision === 'allow' ? 'allow' : 'deny';
    const reasonCode = body.reason_code ?? null;
    const receipt = body.witness_receipt;
    await this.grants.insertOutcomes(manager, {
      grants: [],
      attestations: [],
      decisions: [
        {
          id: randomUUID(),
          applicationId: request.applicationId,
          agentId: request.agentId,
          authorityId: options.authorityId ?? null,
          decision,
          denialCategory: decision === 'deny' ? 'oversight_denied' : null,
          cascadeStep: null,
          reasonCode,
          grantId: null,
          escalationId: null,
          contextHash,
          createdAt: now,
        },
      ],
    });
    await this.outbox.addMany(manager, [
      {
        type: 'grant.decided',
        init: {
          decision,
          agentId: request.agentId,
          authorityId: options.authorityId ?? '',
          denialCategory: decision === 'deny' ? 'oversight_denied' : '',
          cascadeStep: 0,
          reasonCode: reasonCode ?? '',
          receiptSha256: receipt === undefined ? '' : sha256Hex(receipt),
          contextHash,
        },
        context: { applicationId: request.applicationId, occurredAt: now },
      },
    ]);
  }
}

function denied(
  reasonCode: OversightDenialReason,
  message: string,
  extra: { reason?: string; attestation_id?: string; witness_receipt?: string },
): StoredResponse {
  const { reason, ...witnessed } = extra;
  return {
    status: 403,
    body: {
      message,
      reason_code: reasonCode,
      ...(reason === undefined ? {} : { detail: { reason } }),
      decision: 'deny',
      denial_category: 'oversight_denied',
      route: 'oversight',
      ...witnessed,
    } satisfies GrantOversightDeniedResponse,
  };
}
