import { Controller, Inject } from '@nestjs/common';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { Clock } from '@svc/config';
import { decodeEvent, type EventMeta } from '@svc/contracts';
import { processOnce, type OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { FlowsRepository } from '../flows/flows.repository';
import { BatchRecordWriter } from '../records/batch-record-writer';
import type { WithdrawalChannel } from '../records/record';
import { RecordsRepository } from '../records/records.repository';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { CONSENT_RECORDS_OUTBOX } from '../tokens';
import { revocationChannel, sessionIdempotencyKey, sessionRecordDraft, type SessionDecision } from './session-record';
import { isBoundPrincipal, SessionRecordEvidenceRepository } from './session-record-evidence';
import { sessionRecord, withdrawSessionRecord } from './session-record-withdrawal';

/**
 * Named for its filter, `consent_session.>`: a durable keeps the filter it was created with, so the
 * consumer of the earlier shared `consent.>` filter (`consent-records-sessions`) is a different one.
 */
const CONSUMER = 'consent-records-session-decisions';

/**
 * Deliveries of a revocation whose record is not found before it is given up: the record of the
 * session's decision may still be waiting for a redelivery of its own event.
 */
const REVOCATION_ATTEMPTS = 5;

/**
 * Writes the consent record of every consent decision made in a decision session (hosted page,
 * popup, redirect, embed), so such decisions have a record, a consent status and a receipt like
 * any other. One durable consumer of `consent_session.>` (one filter per consumer; it keeps a
 * session's grant and revocation in order) takes decision-gateway's session events:
 * - consent_session.granted / consent_session.denied → a record through the one record writer: channel `embedded`
 *   (delivery mode embed) or `hosted`, the session's flow version, `captured_at` = the decision
 *   time, subject external_id = the session's principal, idempotency key `session:<sha256 of the
 *   session token>`; every purpose of the version the grant does not list is declined.
 * - consent_session.revoked → the session's record withdrawn wholly, channel
 *   `own_records` (revoked by the person) or `organisation` (by the application).
 * Only a session whose person the server bound (`principal_binding` api_token, principal_assertion
 * or hosted_sign_in) gets a record, with that binding as its evidence; an unbound session (a
 * publishable-key session without an assertion, or an event of an older producer without a
 * binding) is nobody's consent and gets none. Each event is applied once (inbox, in the
 * transaction of the write).
 */
@Controller()
export class SessionDecisionsConsumer {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly flows: FlowsRepository,
    private readonly records: RecordsRepository,
    private readonly writer: BatchRecordWriter,
    private readonly evidence: SessionRecordEvidenceRepository,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Applies one event; false when it was not a session decision, was seen before, or wrote nothing.
   * Never dropped: the handler throws only on transient failures (and, boundedly, for a revocation that came first).
   */
  @EventConsumer({ durable: CONSUMER, types: 'consent_session.>' }, { maxDeliver: -1 })
  async handle(event: DeliveredEvent): Promise<boolean> {
    let parsed: SessionEvent | undefined;
    try {
      parsed = this.parse(event);
    } catch (error) {
      // A payload that does not decode never will: skip it rather than redeliver it forever.
      this.logger.error(
        { eventId: event.id, eventType: event.eventType, err: error instanceof Error ? error.message : String(error) },
        'undecodable session event; no consent record',
      );
      return false;
    }
    if (!parsed) return false;
    return parsed.kind === 'decided' ? this.decided(event, parsed.decision) : this.revoked(event, parsed.revocation);
  }

  /** The session decision or revocation an event carries; undefined for any other event. */
  private parse(event: DeliveredEvent): SessionEvent | undefined {
    switch (event.eventType) {
      case 'consent_session.granted': {
        const e = decodeEvent('consent_session.granted', event.data, this.bus.personalData);
        return {
          kind: 'decided',
          decision: {
            ...common(e),
            grantedPurposes: e.purposes,
            decidedAt: this.timeOf(e.fulfilledAt, e.meta),
            deliveryMode: e.deliveryMode,
            principalBinding: e.principalBinding,
          },
        };
      }
      case 'consent_session.denied': {
        const e = decodeEvent('consent_session.denied', event.data, this.bus.personalData);
        return {
          kind: 'decided',
          decision: {
            ...common(e),
            grantedPurposes: [],
            decidedAt: this.timeOf(e.declinedAt, e.meta),
            deliveryMode: e.deliveryMode,
            principalBinding: e.principalBinding,
          },
        };
      }
      case 'consent_session.revoked': {
        const e = decodeEvent('consent_session.revoked', event.data, this.bus.personalData);
        // Not expected from decision-gateway, but a revocation that names no session withdraws nothing.
        if (!e.sessionToken) return undefined;
        return {
          kind: 'revoked',
          revocation: { ...common(e), channel: revocationChannel(e.revokedBy), revokedAt: this.timeOf(e.revokedAt, e.meta) },
        };
      }
      default:
        return undefined;
    }
  }

  /** The event's own time field, else when the event occurred. */
  private timeOf(timestamp: Timestamp | undefined, meta: EventMeta | undefined): Date {
    const at = timestamp ?? meta?.occurredAt;
    return at ? timestampDate(at) : this.clock.now();
  }

  private async decided(event: DeliveredEvent, decision: SessionDecision): Promise<boolean> {
    const context = { eventId: event.id, eventType: event.eventType, applicationId: decision.applicationId, flowId: decision.flowId };
    if (!decision.applicationId || !decision.sessionToken || !decision.flowId) {
      this.logger.warn(context, 'session decision without application, session or flow; no consent record');
      return false;
    }
    const binding = decision.principalBinding;
    if (!decision.userIdentifier || !isBoundPrincipal(binding)) {
      this.logger.info(
        { ...context, principalBinding: binding || 'none' },
        'session decision whose person the server did not bind; no consent record',
      );
      return false;
    }
    let written = false;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, CONSUMER, event.id, async (manager) => {
      // Only the version's terms are used, which never change once it was activated.
      const flow = await this.flows.findSettled(decision.applicationId, decision.flowId, decision.flowVersion, manager);
      if (!flow || flow.version !== decision.flowVersion) {
        this.logger.warn({ ...context, flowVersion: decision.flowVersion }, 'flow version of the session is unknown; no consent record');
        return;
      }
      const [result] = await this.writer.writeMany(manager, [sessionRecordDraft(decision, flow)], this.clock.now());
      if (!result!.ok) {
        this.logger.warn(
          { ...context, reasonCode: result!.error.code },
          'session decision refused by the record writer; no consent record',
        );
        return;
      }
      written = !result!.outcome.replayed;
      if (written) await this.evidence.insert(manager, result!.outcome.record.id, binding);
    });
    return written;
  }

  private async revoked(event: DeliveredEvent, revocation: SessionRevocation): Promise<boolean> {
    const context = { eventId: event.id, eventType: event.eventType, applicationId: revocation.applicationId, flowId: revocation.flowId };
    // A session that never named its person has no record to withdraw.
    if (!revocation.applicationId || !revocation.userIdentifier) return false;
    let withdrawn = false;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, CONSUMER, event.id, async (manager) => {
      const record = await sessionRecord(this.records, manager, revocation.applicationId, sessionIdempotencyKey(revocation.sessionToken));
      if (!record) {
        if (event.deliveryCount < REVOCATION_ATTEMPTS) throw new Error('the revoked session has no consent record yet');
        this.logger.warn(context, 'revoked session has no consent record; nothing withdrawn');
        return;
      }
      const outcome = await withdrawSessionRecord(this.records, this.outbox, manager, record, revocation.channel, revocation.revokedAt);
      if (outcome !== 'withdrawn')
        this.logger.info({ ...context, recordId: record.id, outcome }, "the revoked session's record was left as it is");
      withdrawn = outcome === 'withdrawn';
    });
    return withdrawn;
  }
}

type SessionFields = Pick<SessionDecision, 'applicationId' | 'sessionToken' | 'flowId' | 'flowVersion' | 'userIdentifier'>;

/** A revoked session (decision-gateway's consent.revoked). */
interface SessionRevocation extends SessionFields {
  channel: WithdrawalChannel;
  revokedAt: Date;
}

type SessionEvent = { kind: 'decided'; decision: SessionDecision } | { kind: 'revoked'; revocation: SessionRevocation };

/** The fields every session event carries. */
function common(e: { meta?: EventMeta; sessionToken: string; flowId: string; flowVersion: number; userIdentifier: string }): SessionFields {
  return {
    applicationId: e.meta?.applicationId ?? '',
    sessionToken: e.sessionToken,
    flowId: e.flowId,
    flowVersion: e.flowVersion,
    userIdentifier: e.userIdentifier,
  };
}
