import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { DomainError, HTTP_STATUS_BY_KIND } from '@svc/errors';
import { newApprovalSessionToken } from '@svc/ids';
import type { OutboxWriter } from '@svc/persistence';
import type { EntityManager } from 'typeorm';
import { AgentsRepository } from '../../agents/agents.repository';
import type { Authority } from '../../authorities/authority';
import { AuthoritiesRepository } from '../../authorities/authorities.repository';
import { approvalsNeeded, newEscalationId, type Escalation } from '../../escalations/escalation';
import { EscalationsRepository } from '../../escalations/escalations.repository';
import { oapError } from '../../oap.errors';
import { OAP_VERSION } from '../../schema';
import { IdempotencyStore, type StoredResponse } from '../../shared/idempotency-store';
import { OAP_OUTBOX } from '../../tokens';
import { runCascade, type CascadeDecision } from '../checks/cascade';
import type { GrantHistory, GrantRequest } from '../checks/cascade-step';
import { GrantIssuer } from '../grant-issuer';
import { grantRequestToJson } from '../grant-request-json';
import { GrantsRepository } from '../grants.repository';
import type { VerifiedAttestation } from '../evidence/agent-evidence-verifier';

/** Idempotency scope of `POST /api/v1/grants`. */
export const GRANTS_IDEMPOTENCY_SCOPE = 'grants';

/** Default time an escalation stays open, seconds. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 900;

const NO_HISTORY: GrantHistory = { total: 0, lastMinute: 0, buckets: { minute: 0, hour: 0, day: 0 }, aggregate: '0', recentActions: [], grantedActions: new Set() };

/**
 * `POST /api/v1/grants` after the API edge (steps 1–2): claims the Idempotency-Key, runs steps
 * 3–15 under the authority's row lock, and commits the outcome, its decision row, its events and
 * the stored response in one transaction. Allow → 201 with the grant; deny → 403 with
 * `denial_category` and `cascade_step`; escalate → 202 with the approval session.
 */
@Injectable()
export class RequestGrant {
  constructor(
    private readonly agents: AgentsRepository,
    private readonly authorities: AuthoritiesRepository,
    private readonly grants: GrantsRepository,
    private readonly escalations: EscalationsRepository,
    private readonly issuer: GrantIssuer,
    private readonly idempotency: IdempotencyStore,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
  ) {}

  /**
   * @param requestSha256 SHA-256 of the canonical request body: the same key with another body is 422.
   * @param prepare verification that must run once per claimed key before deciding (credentials,
   *   attestations: their replay caches must not see a retried request twice).
   */
  async execute(
    request: GrantRequest,
    options: { idempotencyKey: string; requestSha256: string; authorityId?: string; prepare?: () => Promise<{ attestation?: VerifiedAttestation }> },
  ): Promise<StoredResponse> {
    const claim = await this.idempotency.claim(request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey, options.requestSha256);
    if (claim.state === 'replay') return claim.response;
    try {
      const prepared = (await options.prepare?.()) ?? {};
      return await this.decide(request, options, prepared.attestation);
    } catch (error) {
      if (error instanceof DomainError && HTTP_STATUS_BY_KIND[error.kind] < 500) {
        const stored = { status: HTTP_STATUS_BY_KIND[error.kind], body: { ...error.toEnvelope() } };
        await this.grants.transaction((manager) => this.idempotency.complete(manager, request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey, stored));
      } else {
        await this.idempotency.release(request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey);
      }
      throw error;
    }
  }

  private async decide(request: GrantRequest, options: { idempotencyKey: string; authorityId?: string }, attestation: VerifiedAttestation | undefined): Promise<StoredResponse> {
    const agent = await this.agents.find(request.agentId);
    if (!agent || agent.applicationId !== request.applicationId) throw oapError('agent_not_found', 'Agent not found', { agent_id: request.agentId });
    const authority = await this.selectAuthority(request, options.authorityId);
    const manifest = await this.agents.currentVersion(request.agentId);
    const contextHash = sha256Hex(canonicalJson(grantRequestToJson(request)));
    return this.grants.transaction(async (manager) => {
      const now = this.clock.now();
      let history = NO_HISTORY;
      if (authority) {
        await this.grants.lockAuthority(manager, authority.id);
        history = await this.grants.history(manager, authority.id, authority.bounds.value_bounds?.currency ?? null, now);
      }
      const decision = runCascade({ now, request, authority, agent, currentManifestSha256: manifest?.manifestSha256 ?? null, history });
      const response = await this.commit(manager, request, authority, decision, contextHash, now, attestation);
      await this.idempotency.complete(manager, request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey, response);
      return response;
    });
  }

  /** The named authority, else the agent's only current one; none → step 3 denies. */
  private async selectAuthority(request: GrantRequest, authorityId: string | undefined): Promise<Authority | undefined> {
    if (authorityId !== undefined) {
      const named = await this.authorities.find(authorityId);
      return named && named.applicationId === request.applicationId && named.agentId === request.agentId ? named : undefined;
    }
    const current = await this.authorities.currentForAgent(request.agentId, 2);
    if (current.length > 1) throw oapError('authority_ambiguous', 'The agent holds several authorities; name one with authority_id', { field: 'authority_id' });
    return current[0];
  }

  private async commit(
    manager: EntityManager,
    request: GrantRequest,
    authority: Authority | undefined,
    decision: CascadeDecision,
    contextHash: string,
    now: Date,
    attestation: VerifiedAttestation | undefined,
  ): Promise<StoredResponse> {
    if (decision.decision === 'allow' && authority) {
      const issued = await this.issuer.issue(manager, { request, authority, now, contextHash, attestation });
      return {
        status: 201,
        body: {
          decision: 'allow',
          grant_id: issued.grant.id,
          agent_token: issued.agentToken,
          token_type: 'DPoP',
          grant_attestation: issued.receipt,
          iss: issued.receiptClaims.iss,
          oap_ver: OAP_VERSION,
          valid_until: request.validUntil.toISOString(),
        },
      };
    }
    if (decision.decision === 'escalate' && authority) return this.escalate(manager, request, authority, contextHash, now);
    const denial = decision.decision === 'deny' ? decision : { step: 3, category: 'authorization_denied' as const, reason: 'authority_not_found', message: 'No authority covers this agent' };
    await this.recordDecision(manager, request, authority, contextHash, now, { decision: 'deny', denialCategory: denial.category, cascadeStep: denial.step, reasonCode: denial.reason });
    return {
      status: 403,
      body: { message: denial.message, reason_code: denial.reason, decision: 'deny', denial_category: denial.category, cascade_step: denial.step },
    };
  }

  private async escalate(manager: EntityManager, request: GrantRequest, authority: Authority, contextHash: string, now: Date): Promise<StoredResponse> {
    const bounds = authority.bounds.escalation_bounds!;
    const sessionToken = newApprovalSessionToken();
    const escalation: Escalation = {
      id: newEscalationId(this.config.REGION),
      applicationId: request.applicationId,
      agentId: request.agentId,
      authorityId: authority.id,
      principalId: authority.principalId,
      status: 'pending',
      quorumType: bounds.quorum_type,
      approvers: bounds.approvers,
      threshold: approvalsNeeded(bounds.quorum_type, bounds.approvers.length, bounds.threshold),
      votes: {},
      approvalTtlAt: new Date(now.getTime() + (bounds.approval_ttl_seconds ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000),
      requestJson: canonicalJson(grantRequestToJson(request)),
      grantId: null,
      createdAt: now,
      resolvedAt: null,
    };
    const decisionUrl = `${this.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/decisions/${sessionToken}`;
    await this.escalations.insert(manager, escalation, sha256Hex(sessionToken));
    await this.outbox.add(
      manager,
      'oap.approval_requested',
      {
        escalationId: escalation.id,
        agentId: request.agentId,
        authorityId: authority.id,
        principalId: authority.principalId,
        quorumType: escalation.quorumType,
        approvers: escalation.approvers,
        threshold: escalation.threshold,
        decisionUrl,
        sessionTokenSha256: sha256Hex(sessionToken),
        approvalTtlAt: escalation.approvalTtlAt.toISOString(),
        requestJson: escalation.requestJson,
      },
      { applicationId: request.applicationId, occurredAt: now },
    );
    await this.recordDecision(manager, request, authority, contextHash, now, { decision: 'escalate', escalationId: escalation.id, cascadeStep: 10 });
    return {
      status: 202,
      body: {
        decision: 'escalate',
        escalation_id: escalation.id,
        escalation_url: `${this.config.PUBLIC_BASE_URL.replace(/\/$/, '')}/api/v1/oap/escalations/${escalation.id}`,
        decision_url: decisionUrl,
        session_token: sessionToken,
        approval_ttl_at: escalation.approvalTtlAt.toISOString(),
        quorum_type: escalation.quorumType,
        approvals_needed: escalation.threshold,
        cascade_step: 10,
      },
    };
  }

  private async recordDecision(
    manager: EntityManager,
    request: GrantRequest,
    authority: Authority | undefined,
    contextHash: string,
    now: Date,
    outcome: { decision: 'deny' | 'escalate'; denialCategory?: string; cascadeStep: number; reasonCode?: string; escalationId?: string },
  ): Promise<void> {
    await this.grants.insertDecision(manager, {
      id: randomUUID(),
      applicationId: request.applicationId,
      agentId: request.agentId,
      authorityId: authority?.id ?? null,
      decision: outcome.decision,
      denialCategory: outcome.denialCategory ?? null,
      cascadeStep: outcome.cascadeStep,
      reasonCode: outcome.reasonCode ?? null,
      grantId: null,
      escalationId: outcome.escalationId ?? null,
      contextHash,
      createdAt: now,
    });
    await this.outbox.add(
      manager,
      'grant.decided',
      {
        decision: outcome.decision,
        agentId: request.agentId,
        authorityId: authority?.id ?? '',
        denialCategory: outcome.denialCategory ?? '',
        cascadeStep: outcome.cascadeStep,
        reasonCode: outcome.reasonCode ?? '',
        escalationId: outcome.escalationId ?? '',
        contextHash,
      },
      { applicationId: request.applicationId, occurredAt: now },
    );
  }
}
