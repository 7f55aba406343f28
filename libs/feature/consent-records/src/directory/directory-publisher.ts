import { Controller, Inject } from '@nestjs/common';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventConsumer, type DeliveredEvent } from '@svc/bus';
import { Clock, regionCountries, type Region } from '@svc/config';
import { decodeEvent } from '@svc/contracts';
import { processOnce, type OutboxWriter } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { ConsentRecordsConfig } from '../consent-records.config';
import { RecordsRepository } from '../records/records.repository';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { CONSENT_RECORDS_OUTBOX } from '../tokens';
import { directoryStatus, initialsOf, referenceOf, subjectRef } from './directory';

/** Record events after which a person's directory status is published again. */
const RECORD_EVENTS = new Set(['consent.recorded', 'consent.purpose_revoked', 'consent.record_revoked', 'consent.expired']);
const DURABLE = 'consent-records-directory';

/**
 * The producer of the cross-border directory: after each change of a person's records (one
 * durable on `consent.>`, so changes are handled in order), it recomputes the person's status at
 * the application from the records and writes `directory.subject_status` to the outbox with the
 * inbox mark. The relay publishes it on this region's directory subject, which every region
 * consumes. Only the keyed hash, initials, per-purpose status and a count are written.
 */
@Controller()
export class DirectoryPublisher {
  private readonly key?: Buffer;

  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly records: RecordsRepository,
    private readonly config: ConsentRecordsConfig,
    private readonly clock: Clock,
    @Inject(CONSENT_RECORDS_OUTBOX) private readonly outbox: OutboxWriter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.key = config.DIRECTORY_KEY ? Buffer.from(config.DIRECTORY_KEY, 'base64') : undefined;
  }

  /** Consumes only in a region configured with the directory key. */
  @EventConsumer((lookup) => (lookup(ConsentRecordsConfig).DIRECTORY_KEY ? { durable: DURABLE, types: 'consent.>' } : []))
  async handle(event: DeliveredEvent): Promise<void> {
    if (!this.key || !RECORD_EVENTS.has(event.eventType)) return;
    const change = this.changeOf(event);
    if (!change) return;
    const reference = referenceOf(change.subject);
    if (!reference) return;
    const now = this.clock.now();
    // A retention sweep may have ended a record before its flow's term: the earlier end governs.
    const heads = await Promise.all(
      (await this.records.headsForSubject(change.applicationId, reference)).map(async (record) => {
        const expiredAt = await this.records.expiryOf(record.id);
        return expiredAt !== undefined && (record.expiresAt === null || expiredAt < record.expiresAt)
          ? { ...record, expiresAt: expiredAt }
          : record;
      }),
    );
    const withdrawals = await this.records.withdrawalsOf(heads.map((r) => r.id));
    const status = directoryStatus(heads, withdrawals, now);
    const key = this.key;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, DURABLE, event.id, async (manager) => {
      await this.outbox.add(
        manager,
        'directory.subject_status',
        {
          subjectRef: subjectRef(key, change.applicationId, reference),
          homeCountry: regionCountries(this.config)[this.config.REGION as Region],
          initials: initialsOf({ external_id: change.subject.external_id || null, email: change.subject.email || null }),
          purposes: status.purposes,
          activeCount: status.activeCount,
          asOf: timestampFromDate(now),
        },
        { applicationId: change.applicationId, occurredAt: now },
      );
    });
  }

  private changeOf(event: DeliveredEvent): { applicationId: string; subject: { external_id: string; email: string } } | undefined {
    try {
      const type = event.eventType as 'consent.recorded' | 'consent.purpose_revoked' | 'consent.record_revoked' | 'consent.expired';
      const decoded = decodeEvent(type, event.data, this.bus.personalData);
      const applicationId = decoded.meta?.applicationId ?? '';
      return applicationId
        ? { applicationId, subject: { external_id: decoded.subjectExternalId, email: decoded.subjectEmail } }
        : undefined;
    } catch (error) {
      this.logger.error(
        { eventId: event.id, eventType: event.eventType, err: error instanceof Error ? error.message : String(error) },
        'undecodable record event; directory not updated',
      );
      return undefined;
    }
  }
}
