import { Controller, Inject, Injectable } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventConsumer, RpcClient, type DeliveredEvent } from '@svc/bus';
import { Clock, PlatformConfig } from '@svc/config';
import { ApprovalRequestedSchema, decodeSealedEvent, parseApprovalProposal, type ApprovalRequested, type EventType } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource, type EntityManager } from 'typeorm';
import { GATEWAY_SCHEMA } from '../schema';
import { DEFAULT_TTL_SECONDS, QUORUM_TYPES, type QuorumType } from './decision';
import { DecisionsRepository } from './decisions.repository';
import { requiredVotes } from './quorum';

/**
 * The events asking for a human approval, one per producer (event catalogue): oap-authorizer's
 * escalated grant request and oversight-witness's escalated attestation, one message.
 */
export const APPROVAL_REQUESTED_EVENTS = ['oap.approval_requested', 'oversight.approval_requested'] as const satisfies readonly EventType[];

/** One durable per approval request event: `durable` for conductor mode's, `<durable>-oversight` for oversight's. */
export function approvalRequestConsumers(durable: string): Array<{ durable: string; types: (typeof APPROVAL_REQUESTED_EVENTS)[number] }> {
  return [
    { durable, types: 'oap.approval_requested' },
    { durable: `${durable}-oversight`, types: 'oversight.approval_requested' },
  ];
}
const CONSUMER = 'decision-gateway-approval-requests';

/**
 * Opens an approval decision session for each escalation (conductor mode). oap-authorizer mints
 * the session token, answers the agent with decision_url/session_token, and sends only the
 * token's SHA-256 here; the session is stored under that digest, so the page and the
 * transitions API find it by the token while the token never crossed the bus. Approving then
 * publishes approval.granted (the grant resumes), denying approval.denied — both carry the
 * escalation id as `reference`.
 *
 * A client may open the decision_url before the event arrives: the page then asks oap-authorizer
 * for the approval request by the token's digest (`oap.get_approval_request`) and opens the same
 * session at once ({@link EscalationApprovals.openOnDemand}); whichever comes second finds it
 * there (the insert is keyed by the digest).
 */
@Injectable()
export class EscalationApprovals {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly sessions: DecisionsRepository,
    private readonly clock: Clock,
    private readonly rpc: RpcClient,
    private readonly config: PlatformConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Creates the session for one approval request; returns false when it was skipped or seen before. */
  async handle(event: DeliveredEvent): Promise<boolean> {
    const request = decodeSealedEvent(ApprovalRequestedSchema, event.data, this.bus.personalData);
    if (!isOpenable(request)) {
      this.logger.warn({ eventId: event.id }, 'approval request without session token digest or application; ignored');
      return false;
    }
    let created = false;
    await processOnce(this.dataSource, GATEWAY_SCHEMA, CONSUMER, event.id, async (manager) => {
      created = await this.open(manager, request, request.decisionUrl);
    });
    return created;
  }

  /**
   * Opens the approval session of an escalation whose event has not arrived yet, asking
   * oap-authorizer by the session token's digest. True when the session exists afterwards (opened
   * here or meanwhile by the event); false when no escalation has that token or the authorizer
   * cannot be asked now (the page then answers 404 as for any unknown token).
   */
  async openOnDemand(tokenSha256: string, sessionToken: string): Promise<boolean> {
    let reply;
    try {
      reply = await this.rpc.call('oap.get_approval_request', { sessionTokenSha256: tokenSha256 });
    } catch (error) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'oap.get_approval_request failed; approval session not opened on demand',
      );
      return false;
    }
    const request = reply.found ? reply.request : undefined;
    if (!request || !isOpenable(request) || request.sessionTokenSha256 !== tokenSha256) return false;
    const decisionUrl = `${this.config.publicBaseUrl}/decisions/${sessionToken}`;
    await this.dataSource.transaction((manager) => this.open(manager, request, decisionUrl));
    return true;
  }

  private async open(manager: EntityManager, request: ApprovalRequested, decisionUrl: string): Promise<boolean> {
    const applicationId = request.meta!.applicationId;
    if (!(await this.sessions.applicationExists(manager, applicationId))) {
      this.logger.warn(
        { escalationId: request.escalationId, applicationId },
        'approval request for an application unknown in this region; ignored',
      );
      return false;
    }
    const now = this.clock.now();
    const participants = request.approvers.length > 0 ? [...new Set(request.approvers)] : request.principalId ? [request.principalId] : [];
    if (participants.length === 0) return false;
    const quorumType: QuorumType = (QUORUM_TYPES as readonly string[]).includes(request.quorumType)
      ? (request.quorumType as QuorumType)
      : 'all';
    // oap-authorizer sends the approvals needed for every quorum type; it is authoritative when present.
    const required =
      request.threshold > 0 ? Math.min(request.threshold, participants.length) : requiredVotes(quorumType, participants.length);
    const deadline = Date.parse(request.approvalTtlAt);
    return this.sessions.insert(
      manager,
      {
        tokenSha256: request.sessionTokenSha256,
        sessionToken: null,
        applicationId,
        kind: 'approval',
        status: 'pending',
        flowId: null,
        flowVersion: null,
        consentPath: null,
        purposes: [],
        deliveryMode: 'direct',
        embedOrigin: null,
        principalId: request.principalId || null,
        principalBinding: request.principalId ? 'authority' : null,
        triggerType: 'escalation',
        reference: request.escalationId || null,
        quorumType,
        quorumRequired: required,
        participants,
        // What the approvers are shown (contracts ApprovalProposal); an older producer sent only the request summary.
        proposal: proposalOf(request),
        decisionUrl,
        deadline: Number.isFinite(deadline) ? new Date(deadline) : new Date(now.getTime() + DEFAULT_TTL_SECONDS.approval * 1000),
        createdVia: 'escalation',
      },
      request.meta?.occurredAt ? timestampDate(request.meta.occurredAt) : now,
    );
  }
}

function isOpenable(request: ApprovalRequested): boolean {
  return /^[0-9a-f]{64}$/.test(request.sessionTokenSha256) && Boolean(request.meta?.applicationId);
}

function proposalOf(request: ApprovalRequested): Record<string, unknown> | null {
  const proposal = request.proposalJson ? parseApprovalProposal(parseObject(request.proposalJson)) : null;
  return proposal ? (proposal as unknown as Record<string, unknown>) : parseObject(request.requestJson);
}

function parseObject(json: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The consumer of `oap.approval_requested` and `oversight.approval_requested`: each escalation's event opens its approval session. */
@Controller()
export class EscalationApprovalRequests {
  constructor(private readonly approvals: EscalationApprovals) {}

  @EventConsumer(approvalRequestConsumers(CONSUMER))
  async handle(event: DeliveredEvent): Promise<void> {
    await this.approvals.handle(event);
  }
}
