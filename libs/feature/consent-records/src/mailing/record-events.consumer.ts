import { Controller, Inject } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import {
  BusConnection,
  Ctx,
  EventBatchConsumer,
  JetStreamContext,
  Payload,
  eachInOrder,
  type BatchOutcomes,
  type DeliveredEvent,
} from '@svc/bus';
import { Clock } from '@svc/config';
import { decodeEvent, decodeEventFields } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { AudienceFlows } from './audience-flows';
import { MailingAudiencesRepository, type NewMailingSync } from './mailing-audiences.repository';
import { MailingSyncWorker } from './mailing-sync-worker';
import { memberWrite, writtenPurposes, type PurposeState } from './member-write';

/** Record events written to mailing audiences (one durable consumer each: one filter per consumer). */
export const MAILING_RECORD_EVENTS = ['consent.recorded', 'consent.purpose_revoked', 'consent.record_revoked'] as const;
type MailingRecordEvent = (typeof MAILING_RECORD_EVENTS)[number];

/** Durable (and inbox consumer) name of the mailing consumer of a record event type. */
function mailingDurableOf(type: MailingRecordEvent): string {
  return `consent-records-mailing-${type.replace(/\./g, '-')}`;
}

/** The parts of a record event a member write needs. */
interface RecordChange {
  applicationId: string;
  flowId: string;
  recordId: string;
  email: string;
  occurredAt: Date;
  /** Purpose states the event settles; undefined = every written purpose is no longer granted. */
  states: Map<string, PurposeState> | undefined;
}

/** The open fields that say whom a record event concerns (every mailing record event has both). */
const ROUTE_FIELDS = ['meta', 'flowId'] as const;

/**
 * Turns every record event of a flow into a queued write to the member of each mailing audience
 * bound to that flow. The queue rows commit with the inbox mark (processOnce), so an acknowledged
 * event is never lost and a redelivered one never queues twice; the sync worker does the HTTP.
 */
@Controller()
export class RecordEventsConsumer {
  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly audiences: MailingAudiencesRepository,
    private readonly audienceFlows: AudienceFlows,
    private readonly worker: MailingSyncWorker,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** One durable per record event type (one filter each); the durable's name is its inbox consumer name too. */
  /** In batches: most flows have no audience, and a batch acknowledges its events in one write. */
  @EventBatchConsumer(MAILING_RECORD_EVENTS.map((type) => ({ durable: mailingDurableOf(type), types: type })))
  consume(@Payload() events: readonly DeliveredEvent[], @Ctx() context: JetStreamContext): Promise<BatchOutcomes> {
    const durable = context.getDurable();
    const type = MAILING_RECORD_EVENTS.find((t) => mailingDurableOf(t) === durable);
    return eachInOrder(events, async (event) => {
      if (type) await this.handle(type, durable, event);
    });
  }

  async handle(type: MailingRecordEvent, consumer: string, event: DeliveredEvent): Promise<void> {
    // Most flows have no mailing audience: leave no inbox row for their (possibly imported, bulk)
    // events, ask no statement for them (the answer is cached, renewed at a connection's commit)
    // and do not open their sealed personal data.
    const route = this.routeOf(type, event);
    if (route && (!route.applicationId || !route.flowId || !(await this.audienceFlows.connected(route.applicationId, route.flowId))))
      return;
    const change = this.changeOf(type, event);
    if (!change) return;
    let queued = 0;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, consumer, event.id, async (manager) => {
      const audiences = await this.audiences.audiencesOfFlow(manager, change.applicationId, change.flowId);
      const syncs: NewMailingSync[] = audiences.map((audience) => {
        const states = change.states ?? new Map(writtenPurposes(audience.permissions, audience.tags).map((p) => [p, 'declined' as const]));
        const write = memberWrite(states, audience.permissions, audience.tags);
        const nothing = write.permissions.length === 0 && write.tags.length === 0;
        const skip = !change.email ? 'subject_has_no_email' : nothing ? 'no_mapped_purpose' : null;
        return {
          audienceId: audience.id,
          eventId: event.id,
          eventType: type,
          recordId: change.recordId,
          email: change.email || null,
          permissions: write.permissions,
          tags: write.tags,
          status: skip ? 'skipped' : 'pending',
          occurredAt: change.occurredAt,
          lastError: skip,
        };
      });
      queued = await this.audiences.insertSyncs(manager, syncs, this.clock.now());
    });
    if (queued > 0) this.worker.kick();
  }

  /** The event's application and flow, read without opening its sealed fields; undefined when it does not decode. */
  private routeOf(type: MailingRecordEvent, event: DeliveredEvent): { applicationId: string; flowId: string } | undefined {
    try {
      const e = decodeEventFields(type, event.data, ROUTE_FIELDS);
      return { applicationId: e.meta?.applicationId ?? '', flowId: e.flowId };
    } catch {
      return undefined;
    }
  }

  private changeOf(type: MailingRecordEvent, event: DeliveredEvent): RecordChange | undefined {
    let change: RecordChange | undefined;
    try {
      if (type === 'consent.recorded') {
        const e = decodeEvent(type, event.data, this.bus.personalData);
        change = {
          applicationId: e.meta?.applicationId ?? '',
          flowId: e.flowId,
          recordId: e.recordId,
          email: e.subjectEmail,
          occurredAt: e.recordedAt ? timestampDate(e.recordedAt) : this.clock.now(),
          states: new Map(e.outcomes.map((o) => [o.purpose, o.decision === 'granted' ? 'granted' : 'declined'])),
        };
      } else if (type === 'consent.purpose_revoked') {
        const e = decodeEvent(type, event.data, this.bus.personalData);
        change = {
          applicationId: e.meta?.applicationId ?? '',
          flowId: e.flowId,
          recordId: e.recordId,
          email: e.subjectEmail,
          occurredAt: e.revokedAt ? timestampDate(e.revokedAt) : this.clock.now(),
          states: new Map([[e.purpose, 'declined']]),
        };
      } else {
        const e = decodeEvent(type, event.data, this.bus.personalData);
        change = {
          applicationId: e.meta?.applicationId ?? '',
          flowId: e.flowId,
          recordId: e.recordId,
          email: e.subjectEmail,
          occurredAt: e.revokedAt ? timestampDate(e.revokedAt) : this.clock.now(),
          states: undefined,
        };
      }
    } catch (error) {
      // A payload that does not decode never will: skip it rather than redeliver it forever.
      this.logger.error(
        { eventId: event.id, eventType: type, err: error instanceof Error ? error.message : String(error) },
        'undecodable record event; not written to mailing audiences',
      );
      return undefined;
    }
    return change.applicationId && change.flowId ? change : undefined;
  }
}
