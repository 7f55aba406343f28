import { Controller, Inject, type OnModuleInit } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, Ctx, EventConsumer, JetStreamContext, Payload, ensureImportedStream, type DeliveredEvent } from '@svc/bus';
import { Clock, REGIONS, regionCountries, type Region } from '@svc/config';
import { decodeEvent, eventSubject } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { DataSource } from 'typeorm';
import { ConsentRecordsConfig } from '../consent-records.config';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { DirectoryRepository } from './directory.repository';

/** The only event type a region reads from another region's stream. */
export const DIRECTORY_EVENT = 'directory.subject_status' as const;

/** Durable (and inbox consumer) name of `consumer`'s replica of `region`'s directory. */
function replicaDurableOf(consumer: string, region: Region): string {
  return `consent-records-directory-replica-${consumer}-from-${region}`;
}

/**
 * The consumer side of the cross-border directory: one durable explicit-ack consumer per region
 * (this one included) on that region's `directory.subject_status` subject, named after the
 * consuming region, each message recorded once (inbox) with the newest status kept per person and
 * application. Never gives up on a message (`maxDeliver` -1). A region whose stream does not
 * exist yet is opened by the transport once it does. Runs only in a region configured with the
 * directory key.
 */
@Controller()
export class DirectoryReplica implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly entries: DirectoryRepository,
    private readonly config: ConsentRecordsConfig,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly bus: BusConnection,
  ) {}

  /**
   * With region accounts (the process connects as its region's NATS user), another region's
   * directory subject arrives in this account through the import of deploy/nats/accounts.conf:
   * this keeps it in a stream of this account named as that region's, where the durables below
   * read it. Without accounts every region's stream is already visible and nothing is made.
   */
  async onModuleInit(): Promise<void> {
    if (!this.config.DIRECTORY_KEY || !this.config.NATS_USER) return;
    for (const region of REGIONS) {
      if (region === this.config.REGION) continue;
      try {
        await ensureImportedStream(this.bus.jsm, this.bus.prefix, region, [eventSubject(this.bus.prefix, region, DIRECTORY_EVENT)]);
      } catch (error) {
        // The durable keeps retrying until the stream exists; the replica is not worth a failed boot.
        this.logger.error(
          { region, err: error instanceof Error ? error.message : String(error) },
          'could not open the imported directory stream',
        );
      }
    }
  }

  /** Applies one region's status of a person, delivered by that region's durable. */
  @EventConsumer(
    (lookup) => {
      const config = lookup(ConsentRecordsConfig);
      return config.DIRECTORY_KEY
        ? REGIONS.map((region) => ({ durable: replicaDurableOf(config.REGION, region), types: DIRECTORY_EVENT, region }))
        : [];
    },
    { maxDeliver: -1 },
  )
  async consume(@Payload() event: DeliveredEvent, @Ctx() context: JetStreamContext): Promise<void> {
    await this.apply(context.getRegion() as Region, context.getDurable(), event.id, event.data);
  }

  /** Records one region's status of a person (once per message id). */
  async apply(region: Region, durable: string, id: string, data: Uint8Array): Promise<void> {
    let event;
    try {
      event = decodeEvent(DIRECTORY_EVENT, data, undefined);
    } catch (error) {
      this.logger.error(
        { eventId: id, err: error instanceof Error ? error.message : String(error) },
        'undecodable directory status; skipped',
      );
      return;
    }
    const applicationId = event.meta?.applicationId ?? '';
    if (!applicationId || !/^[0-9a-f]{64}$/.test(event.subjectRef) || !event.asOf) return;
    await processOnce(this.dataSource, CONSENT_RECORDS_SCHEMA, durable, id, async (manager) => {
      await this.entries.upsert(
        manager,
        {
          applicationId,
          subjectRef: event.subjectRef,
          homeRegion: region,
          homeCountry: event.homeCountry || regionCountries(this.config)[region],
          initials: event.initials.slice(0, 2),
          purposes: event.purposes.map((p) => ({ purpose: p.purpose, status: p.status })),
          activeCount: event.activeCount,
          asOf: timestampDate(event.asOf!),
        },
        this.clock.now(),
      );
    });
  }
}
