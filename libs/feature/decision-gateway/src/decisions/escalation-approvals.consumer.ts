import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, type DeliveredEvent, type DurableConsumer } from '@svc/bus';
import { Clock } from '@svc/config';
import { ApprovalRequestedSchema, decodeSealedEvent } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER, consumeEvents } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { GATEWAY_SCHEMA } from '../schema';
import { DEFAULT_TTL_SECONDS, QUORUM_TYPES, type QuorumType } from './decision';
import { DecisionsRepository } from './decisions.repository';
import { requiredVotes } from './quorum';

/** Event type oap-authorizer publishes when a grant request escalates (contracts OAP_EVENTS). */
export const APPROVAL_REQUESTED_EVENT = 'oap.approval_requested';
const CONSUMER = 'decision-gateway-approval-requests';

/**
 * Opens an approval decision session for each escalation (conductor mode). oap-authorizer mints
 * the session token, answers the agent with decision_url/session_token, and sends only the
 * token's SHA-256 here; the session is stored under that digest, so the page and the
 * transitions API find it by the token while the token never crossed the bus. Approving then
 * publishes approval.granted (the grant resumes), denying approval.denied — both carry the
 * escalation id as `reference`.
 */
@Injectable()
export class EscalationApprovals implements OnApplicationBootstrap, OnApplicationShutdown {
  private consumer?: DurableConsumer;

  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly sessions: DecisionsRepository,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.consumer = await consumeEvents(this.bus, this.logger, CONSUMER, APPROVAL_REQUESTED_EVENT, async (event) => {
      await this.handle(event);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.stop();
  }

  /** Creates the session for one approval request; returns false when it was skipped or seen before. */
  async handle(event: DeliveredEvent): Promise<boolean> {
    const request = decodeSealedEvent(ApprovalRequestedSchema, event.data, this.bus.personalData);
    const applicationId = request.meta?.applicationId ?? '';
    if (!/^[0-9a-f]{64}$/.test(request.sessionTokenSha256) || !applicationId) {
      this.logger.warn({ eventId: event.id }, 'approval request without session token digest or application; ignored');
      return false;
    }
    let created = false;
    await processOnce(this.dataSource, GATEWAY_SCHEMA, CONSUMER, event.id, async (manager) => {
      if (!(await this.sessions.applicationExists(manager, applicationId))) {
        this.logger.warn({ eventId: event.id, applicationId }, 'approval request for an application unknown in this region; ignored');
        return;
      }
      const now = this.clock.now();
      const participants = request.approvers.length > 0 ? [...new Set(request.approvers)] : request.principalId ? [request.principalId] : [];
      if (participants.length === 0) return;
      const quorumType: QuorumType = (QUORUM_TYPES as readonly string[]).includes(request.quorumType) ? (request.quorumType as QuorumType) : 'all';
      // oap-authorizer sends the approvals needed for every quorum type; it is authoritative when present.
      const required = request.threshold > 0 ? Math.min(request.threshold, participants.length) : requiredVotes(quorumType, participants.length);
      const deadline = Date.parse(request.approvalTtlAt);
      created = await this.sessions.insert(
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
          triggerType: 'escalation',
          reference: request.escalationId || null,
          quorumType,
          quorumRequired: required,
          participants,
          proposal: parseObject(request.requestJson),
          decisionUrl: request.decisionUrl,
          deadline: Number.isFinite(deadline) ? new Date(deadline) : new Date(now.getTime() + DEFAULT_TTL_SECONDS.approval * 1000),
          createdVia: 'escalation',
        },
        request.meta?.occurredAt ? timestampDate(request.meta.occurredAt) : now,
      );
    });
    return created;
  }
}

function parseObject(json: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(json);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
