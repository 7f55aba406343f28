import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Clock, PlatformConfig, faultPoint } from '@svc/config';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { DomainError, HTTP_STATUS_BY_KIND } from '@svc/errors';
import { newApprovalSessionToken } from '@svc/ids';
import { GroupCommitQueue, type JobOutcome, type OutboxWriter, type PendingEvent } from '@svc/persistence';
import { BUSINESS_METRICS, Metrics } from '@svc/telemetry';
import type { Counter } from 'prom-client';
import { QueryFailedError, type EntityManager } from 'typeorm';
import { holderOf, type Authority } from '../../authorities/authority';
import type { Agent } from '../../agents/agent';
import { approvalProposalOf } from '../../escalations/approval-proposal';
import { approvalsNeeded, newEscalationId, type Escalation } from '../../escalations/escalation';
import { EscalationsRepository } from '../../escalations/escalations.repository';
import { oapError } from '../../oap.errors';
import { OAP_VERSION } from '../../schema';
import { addDecimal } from '../../shared/decimal';
import { IdempotencyStore, type KeyRef, type StoredResponse } from '../../shared/idempotency-store';
import { ReplayCache } from '../../shared/replay-cache';
import { OAP_OUTBOX } from '../../tokens';
import { runCascade } from '../checks/cascade';
import type { GrantHistory, GrantRequest } from '../checks/cascade-step';
import { historyNeeds } from '../checks/history-needs';
import { dpopReplayedError, type DpopReplayEntry } from '../dpop';
import type { VerifiedAttestation } from '../evidence/agent-evidence-verifier';
import { GrantIssuer, type SignedGrant } from '../grant-issuer';
import { grantRequestToJson } from '../grant-request-json';
import {
  GrantsRepository,
  RECENT_ACTIONS,
  type AgentSnapshot,
  type AttestationTokenInsert,
  type DecisionRecord,
  type GrantInsert,
} from '../grants.repository';
import type { GrantAllowedResponse, GrantDeniedResponse, GrantEscalatedResponse } from '../grant-decision.responses';

/** Idempotency scope of `POST /api/v1/grants`. */
export const GRANTS_IDEMPOTENCY_SCOPE = 'grants';

/** Default time an escalation stays open, seconds. */
export const DEFAULT_APPROVAL_TTL_SECONDS = 900;

/** Most grant requests decided in one transaction. */
export const MAX_GRANT_BATCH = 256;

/**
 * Batches in flight at once. Requests are spread over the writers by agent, so concurrent batches
 * never share an authority (its history stays one writer's) while one batch's database round
 * trips overlap the next batch's work.
 */
export const GRANT_WRITERS = 2;

const NO_HISTORY: GrantHistory = {
  total: 0,
  lastMinute: 0,
  buckets: { minute: 0, hour: 0, day: 0 },
  aggregate: '0',
  month: '0',
  recentActions: [],
  grantedActions: new Set(),
};

/** Options of one grant request. */
export interface RequestGrantOptions {
  idempotencyKey: string;
  /** SHA-256 of the canonical request body: the same key with another body is 422. */
  requestSha256: string;
  authorityId?: string;
  /** The DPoP proof's one-time value, recorded with the request (a replay is refused, 401). */
  dpopReplay?: DpopReplayEntry;
  /**
   * Verification that must run once per claimed key before deciding (credentials, attestations:
   * their replay caches must not see a retried request twice).
   */
  prepare?: () => Promise<{ attestation?: VerifiedAttestation }>;
}

/** One request in the group commit. `claimed`: its key was claimed (and committed) before. */
interface GrantJob {
  request: GrantRequest;
  options: RequestGrantOptions;
  claimed: boolean;
  attestation?: VerifiedAttestation;
}

/** What one batch writes, gathered while its requests are decided in order. */
interface BatchWrites {
  grants: GrantInsert[];
  attestations: AttestationTokenInsert[];
  decisions: DecisionRecord[];
  events: PendingEvent[];
  completions: Array<KeyRef & { response: StoredResponse }>;
  releases: KeyRef[];
}

/**
 * `POST /api/v1/grants` after the API edge (steps 1–2), as a group commit: concurrent requests
 * queue, and one writer decides everything queued in ONE transaction — records the DPoP `jti`s and
 * claims the Idempotency-Keys (one statement), locks each authority once (id order), reads each
 * history once, runs steps 3–15 for each request in arrival order while updating the in-memory
 * history (so a later request sees the grants allowed before it), writes every grant, decision,
 * event and stored response in one statement, commits, and only then answers each caller. Receipts are
 * signed before the transaction. A request refused by validation fails alone; a deadlock or
 * serialization failure runs the batch again; any other database failure rolls the batch back
 * (claims included) and its requests are decided again one by one, so only a request that cannot
 * be committed fails and the other applications' requests are answered normally. Allow → 201 with the grant;
 * deny → 403 with `denial_category` and `cascade_step`; escalate → 202 with the approval session.
 */
@Injectable()
export class RequestGrant {
  private readonly writers = Array.from(
    { length: GRANT_WRITERS },
    () => new GroupCommitQueue<GrantJob, StoredResponse>((jobs) => this.decideBatch(jobs), { maxBatch: MAX_GRANT_BATCH }),
  );
  private readonly decisionsCounted: Counter<'outcome' | 'cascade_step'>;

  constructor(
    private readonly grants: GrantsRepository,
    private readonly escalations: EscalationsRepository,
    private readonly issuer: GrantIssuer,
    private readonly idempotency: IdempotencyStore,
    private readonly replay: ReplayCache,
    @Inject(OAP_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    private readonly config: PlatformConfig,
    metrics: Metrics,
  ) {
    this.decisionsCounted = metrics.counterOf(BUSINESS_METRICS.grantDecisions);
  }

  async execute(request: GrantRequest, options: RequestGrantOptions): Promise<StoredResponse> {
    if (!options.prepare) return this.writerOf(request).submit({ request, options, claimed: false });
    // With evidence to verify, the key is claimed (and committed) first, then the evidence is
    // verified once, then the request joins a batch.
    if (
      options.dpopReplay &&
      !(await this.replay.firstUse('dpop', options.dpopReplay.value, options.dpopReplay.expiresAt, this.clock.now()))
    )
      throw dpopReplayedError();
    const claim = await this.idempotency.claim(
      request.applicationId,
      GRANTS_IDEMPOTENCY_SCOPE,
      options.idempotencyKey,
      options.requestSha256,
    );
    if (claim.state === 'replay') return claim.response;
    faultPoint('idempotency.after-claim');
    let attestation: VerifiedAttestation | undefined;
    try {
      ({ attestation } = await options.prepare());
    } catch (error) {
      if (isClientError(error)) {
        const stored = { status: HTTP_STATUS_BY_KIND[error.kind], body: { ...error.toEnvelope() } };
        await this.grants.transaction((manager) =>
          this.idempotency.completeMany(manager, GRANTS_IDEMPOTENCY_SCOPE, [
            { applicationId: request.applicationId, key: options.idempotencyKey, response: stored },
          ]),
        );
      } else {
        await this.idempotency.release(request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey);
      }
      throw error;
    }
    try {
      return await this.writerOf(request).submit({ request, options, claimed: true, attestation });
    } catch (error) {
      // A refusal inside the batch was stored there; anything else frees the key for a retry.
      if (!isClientError(error)) await this.idempotency.release(request.applicationId, GRANTS_IDEMPOTENCY_SCOPE, options.idempotencyKey);
      throw error;
    }
  }

  private writerOf(request: GrantRequest): GroupCommitQueue<GrantJob, StoredResponse> {
    let hash = 0;
    for (let i = 0; i < request.agentId.length; i += 1) hash = (hash * 31 + request.agentId.charCodeAt(i)) | 0;
    return this.writers[Math.abs(hash) % this.writers.length]!;
  }

  private async decideBatch(jobs: GrantJob[]): Promise<Array<JobOutcome<StoredResponse>>> {
    const now = this.clock.now();
    const requestJsons = jobs.map((job) => canonicalJson(grantRequestToJson(job.request)));
    const contextHashes = requestJsons.map((json) => sha256Hex(json));
    const outcomes: Array<JobOutcome<StoredResponse> | undefined> = jobs.map(() => undefined);
    // Receipts are signed before the transaction (CPU work that needs no lock), all at once: the
    // signatures run on the crypto thread pool. Unused ones are dropped.
    const signed = await Promise.all(
      jobs.map((job, index) =>
        this.issuer
          .sign({ request: job.request, now, contextHash: contextHashes[index]!, attestation: job.attestation })
          .catch((error: unknown) => {
            outcomes[index] = { ok: false, error };
            return undefined;
          }),
      ),
    );
    // Best-effort cleanup of expired rows, on its own connection: a batch never waits for it, and a
    // failed sweep is simply retried a minute later.
    void this.replay.sweep(now).catch(() => undefined);
    void this.idempotency.sweep(now).catch(() => undefined);
    const writes: BatchWrites = { grants: [], attestations: [], decisions: [], events: [], completions: [], releases: [] };
    // Agents are read beside the transaction (as the request's own lookup always was), in parallel with its first statements.
    const agentsRead = this.grants.agentSnapshots(unique(jobs.map((job) => job.request.agentId)));
    agentsRead.catch(() => undefined);
    await this.grants.transaction(async (manager) => {
      await this.claimBatch(manager, jobs, outcomes, now);
      const live = jobs.flatMap((_, index) => (outcomes[index] ? [] : [index]));
      if (live.length > 0) {
        const agents = await agentsRead;
        const locked = await this.grants.lockAuthorities(manager, {
          named: unique(
            live.flatMap((index) => (jobs[index]!.options.authorityId === undefined ? [] : [jobs[index]!.options.authorityId!])),
          ),
          unnamedAgentIds: unique(
            live.flatMap((index) => (jobs[index]!.options.authorityId === undefined ? [jobs[index]!.request.agentId] : [])),
          ),
          agentIds: unique(live.map((index) => jobs[index]!.request.agentId)),
        });
        const authorities = locked.map((row) => row.authority);
        const usages = new Map(locked.map((row) => [row.authority.id, row.usage]));
        const selected = new Map<number, Authority | undefined | DomainError>();
        for (const index of live) {
          try {
            selected.set(index, selectAuthority(jobs[index]!, authorities));
          } catch (error) {
            selected.set(index, error as DomainError);
          }
        }
        const used = unique(
          [...selected.values()].flatMap((authority) => (authority && !(authority instanceof DomainError) ? [authority] : [])),
        );
        const histories = await this.grants.histories(
          manager,
          used.map((authority) => ({
            authorityId: authority.id,
            currency: authority.bounds.value_bounds?.currency ?? null,
            usage: usages.get(authority.id)!,
            needs: historyNeeds(authority.bounds),
          })),
          now,
        );
        for (const index of live) {
          const job = jobs[index]!;
          const key = { applicationId: job.request.applicationId, key: job.options.idempotencyKey };
          try {
            const response = await this.decideOne(manager, writes, {
              job,
              agent: agents.get(job.request.agentId),
              authority: selected.get(index),
              histories,
              now,
              contextHash: contextHashes[index]!,
              requestJson: requestJsons[index]!,
              signed: signed[index]!,
            });
            writes.completions.push({ ...key, response });
            outcomes[index] = { ok: true, value: response };
          } catch (error) {
            if (error instanceof QueryFailedError) throw error;
            if (isClientError(error))
              writes.completions.push({ ...key, response: { status: HTTP_STATUS_BY_KIND[error.kind], body: { ...error.toEnvelope() } } });
            else writes.releases.push(key);
            outcomes[index] = { ok: false, error };
          }
        }
      }
      // One statement: the outcome rows, their events and the settled keys.
      await this.grants.insertOutcomes(
        manager,
        writes,
        (firstParam) => this.outbox.writePart(writes.events, firstParam),
        (firstParam) =>
          this.idempotency.settlement(GRANTS_IDEMPOTENCY_SCOPE, { completions: writes.completions, releases: writes.releases }, firstParam),
      );
    });
    faultPoint('grant.after-commit');
    // Counted once committed: a batch run again after a conflict counts only its committed run.
    for (const decision of writes.decisions)
      this.decisionsCounted.inc({
        outcome: decision.decision,
        cascade_step: decision.cascadeStep === null ? 'none' : String(decision.cascadeStep),
      });
    return outcomes.map((outcome) => outcome ?? { ok: false, error: new Error('grant request left undecided') });
  }

  /**
   * Records the DPoP `jti`s and claims the keys of the batch's new requests, in one statement;
   * settles those refused (replayed proof 401, key in flight 409, other body 422) or answered
   * (stored response). A request whose proof was used before claims nothing.
   */
  private async claimBatch(
    manager: EntityManager,
    jobs: GrantJob[],
    outcomes: Array<JobOutcome<StoredResponse> | undefined>,
    now: Date,
  ): Promise<void> {
    const candidates = jobs.flatMap((job, index) => (!job.claimed && !outcomes[index] ? [index] : []));
    const proofs = this.replay.recording(
      'dpop',
      candidates.map((index) => jobs[index]!.options.dpopReplay),
      now,
    );
    // A proof repeated within the batch is a replay whatever is recorded: refused before claiming.
    candidates.forEach((index, position) => {
      if (proofs.repeated[position]) outcomes[index] = { ok: false, error: dpopReplayedError() };
    });
    const toClaim = candidates.flatMap((index, position) => (proofs.repeated[position] ? [] : [{ index, gate: proofs.digests[position] }]));
    const claims = await this.idempotency.claimMany(
      manager,
      GRANTS_IDEMPOTENCY_SCOPE,
      toClaim.map(({ index, gate }) => ({
        applicationId: jobs[index]!.request.applicationId,
        key: jobs[index]!.options.idempotencyKey,
        requestSha256: jobs[index]!.options.requestSha256,
        gate,
      })),
      now,
      proofs,
    );
    toClaim.forEach(({ index }, position) => {
      const claim = claims[position]!;
      if (claim.state === 'unrecorded') outcomes[index] = { ok: false, error: dpopReplayedError() };
      else if (claim.state === 'replay') outcomes[index] = { ok: true, value: claim.response };
      else if (claim.state === 'refused') outcomes[index] = { ok: false, error: claim.error };
    });
  }

  /** Steps 3–15 for one request of the batch; its rows join `writes`, an allow updates the history. */
  private async decideOne(
    manager: EntityManager,
    writes: BatchWrites,
    input: {
      job: GrantJob;
      agent: AgentSnapshot | undefined;
      authority: Authority | undefined | DomainError;
      histories: Map<string, GrantHistory>;
      now: Date;
      contextHash: string;
      requestJson: string;
      signed: SignedGrant;
    },
  ): Promise<StoredResponse> {
    const { job, agent, now, contextHash } = input;
    const { request } = job;
    if (!agent || agent.agent.applicationId !== request.applicationId)
      throw oapError('agent_not_found', 'Agent not found', { agent_id: request.agentId });
    if (input.authority instanceof DomainError) throw input.authority;
    const authority = input.authority;
    const history = authority ? (input.histories.get(authority.id) ?? NO_HISTORY) : NO_HISTORY;
    const decision = runCascade({ now, request, authority, agent: agent.agent, currentManifestSha256: agent.manifestSha256, history });
    if (decision.decision === 'allow' && authority) {
      const { issued, rows } = this.issuer.mint(input.signed, {
        request,
        authority,
        now,
        contextHash,
        requestJson: input.requestJson,
        attestation: job.attestation,
      });
      writes.grants.push(rows.grant);
      if (rows.attestation) writes.attestations.push(rows.attestation);
      writes.decisions.push(rows.decision);
      writes.events.push(...rows.events);
      input.histories.set(authority.id, withGrant(history, request, authority.bounds.value_bounds?.currency ?? null));
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
        } satisfies GrantAllowedResponse,
      };
    }
    if (decision.decision === 'escalate' && authority)
      return this.escalate(manager, writes, { request, authority, agent: agent.agent, contextHash, requestJson: input.requestJson, now });
    const denial =
      decision.decision === 'deny'
        ? decision
        : { step: 3, category: 'authorization_denied' as const, reason: 'authority_not_found', message: 'No authority covers this agent' };
    recordDecision(
      writes,
      { request, authority, contextHash, now },
      { decision: 'deny', denialCategory: denial.category, cascadeStep: denial.step, reasonCode: denial.reason },
    );
    return {
      status: 403,
      body: {
        message: denial.message,
        reason_code: denial.reason,
        decision: 'deny',
        denial_category: denial.category,
        cascade_step: denial.step,
      } satisfies GrantDeniedResponse,
    };
  }

  private async escalate(
    manager: EntityManager,
    writes: BatchWrites,
    input: { request: GrantRequest; authority: Authority; agent: Agent; contextHash: string; requestJson: string; now: Date },
  ): Promise<StoredResponse> {
    const { request, authority, now } = input;
    const bounds = authority.bounds.escalation_bounds!;
    const sessionToken = newApprovalSessionToken();
    const escalation: Escalation = {
      id: newEscalationId(this.config.REGION),
      applicationId: request.applicationId,
      agentId: request.agentId,
      authorityId: authority.id,
      principalId: holderOf(authority),
      status: 'pending',
      quorumType: bounds.quorum_type,
      approvers: bounds.approvers,
      threshold: approvalsNeeded(bounds.quorum_type, bounds.approvers.length, bounds.threshold),
      votes: {},
      approvalTtlAt: new Date(now.getTime() + (bounds.approval_ttl_seconds ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000),
      requestJson: input.requestJson,
      grantId: null,
      createdAt: now,
      resolvedAt: null,
      counterProposal: null,
    };
    const decisionUrl = `${this.config.publicBaseUrl}/decisions/${sessionToken}`;
    const proposalJson = JSON.stringify(
      approvalProposalOf({ escalationId: escalation.id, request, authority, agent: input.agent, deadline: escalation.approvalTtlAt }),
    );
    await this.escalations.insert(manager, escalation, sha256Hex(sessionToken), proposalJson);
    writes.events.push({
      type: 'oap.approval_requested',
      init: {
        escalationId: escalation.id,
        agentId: request.agentId,
        authorityId: authority.id,
        principalId: holderOf(authority),
        quorumType: escalation.quorumType,
        approvers: escalation.approvers,
        threshold: escalation.threshold,
        decisionUrl,
        sessionTokenSha256: sha256Hex(sessionToken),
        approvalTtlAt: escalation.approvalTtlAt.toISOString(),
        requestJson: escalation.requestJson,
        proposalJson,
      },
      context: { applicationId: request.applicationId, occurredAt: now },
    });
    recordDecision(writes, input, { decision: 'escalate', escalationId: escalation.id, cascadeStep: 10 });
    return {
      status: 202,
      body: {
        decision: 'escalate',
        escalation_id: escalation.id,
        escalation_url: `${this.config.publicBaseUrl}/api/v1/oap/escalations/${escalation.id}`,
        decision_url: decisionUrl,
        session_token: sessionToken,
        approval_ttl_at: escalation.approvalTtlAt.toISOString(),
        quorum_type: escalation.quorumType,
        approvals_needed: escalation.threshold,
        cascade_step: 10,
      } satisfies GrantEscalatedResponse,
    };
  }
}

function isClientError(error: unknown): error is DomainError {
  return error instanceof DomainError && HTTP_STATUS_BY_KIND[error.kind] < 500;
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** The named authority, else the agent's only current one (newest first); none → step 3 denies. */
function selectAuthority(job: GrantJob, locked: readonly Authority[]): Authority | undefined {
  const { request } = job;
  const named = job.options.authorityId;
  if (named !== undefined) {
    const authority = locked.find((candidate) => candidate.id === named);
    return authority && authority.applicationId === request.applicationId && authority.agentId === request.agentId ? authority : undefined;
  }
  const current = locked
    .filter((candidate) => candidate.agentId === request.agentId && candidate.status !== 'revoked')
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  if (current.length > 1)
    throw oapError('authority_ambiguous', 'The agent holds several authorities; name one with authority_id', { field: 'authority_id' });
  return current[0];
}

/** The history after one more allowed grant of `request` at the batch's time. */
function withGrant(history: GrantHistory, request: GrantRequest, currency: string | null): GrantHistory {
  const first = request.actions[0];
  const amount = request.value && currency !== null && request.value.currency === currency ? request.value.amount : undefined;
  return {
    total: history.total + 1,
    lastMinute: history.lastMinute + 1,
    buckets: { minute: history.buckets.minute + 1, hour: history.buckets.hour + 1, day: history.buckets.day + 1 },
    aggregate: amount === undefined ? history.aggregate : addDecimal(history.aggregate, amount),
    month: amount === undefined ? history.month : addDecimal(history.month, amount),
    recentActions: [...(first === undefined ? [] : [first]), ...history.recentActions].slice(0, RECENT_ACTIONS),
    grantedActions: new Set([...history.grantedActions, ...request.actions]),
  };
}

function recordDecision(
  writes: BatchWrites,
  input: { request: GrantRequest; authority: Authority | undefined; contextHash: string; now: Date },
  outcome: { decision: 'deny' | 'escalate'; denialCategory?: string; cascadeStep: number; reasonCode?: string; escalationId?: string },
): void {
  const { request, authority, contextHash, now } = input;
  writes.decisions.push({
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
  writes.events.push({
    type: 'grant.decided',
    init: {
      decision: outcome.decision,
      agentId: request.agentId,
      authorityId: authority?.id ?? '',
      denialCategory: outcome.denialCategory ?? '',
      cascadeStep: outcome.cascadeStep,
      reasonCode: outcome.reasonCode ?? '',
      escalationId: outcome.escalationId ?? '',
      contextHash,
    },
    context: { applicationId: request.applicationId, occurredAt: now },
  });
}
