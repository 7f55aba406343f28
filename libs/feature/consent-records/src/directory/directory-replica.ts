import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { BusConnection } from '@svc/bus';
import { Clock, REGIONS, regionCountries, type Region } from '@svc/config';
import { decodeEvent, eventSubject, regionStreamName } from '@svc/contracts';
import { processOnce } from '@svc/persistence';
import { LOGGER } from '@svc/server';
import type { Logger } from '@svc/telemetry';
import { AckPolicy, DeliverPolicy, type ConsumerMessages, type JsMsg } from 'nats';
import { DataSource } from 'typeorm';
import { ConsentRecordsConfig } from '../consent-records.config';
import { CONSENT_RECORDS_SCHEMA } from '../schema';
import { DirectoryRepository } from './directory.repository';

/** The only event type a region reads from another region's stream. */
export const DIRECTORY_EVENT = 'directory.subject_status';
/** Wait before trying again to open a region's directory consumer (its stream may not exist yet). */
const RETRY_MS = 2_000;

/**
 * The consumer side of the cross-border directory: one durable explicit-ack consumer per region
 * (this one included) on that region's `directory.subject_status` subject, named after the
 * consuming region, each message recorded once (inbox) with the newest status kept per person and
 * application. A region whose stream does not exist yet is tried again until it does.
 */
@Injectable()
export class DirectoryReplica implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly streams: ConsumerMessages[] = [];
  private readonly loops: Array<Promise<void>> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;

  constructor(
    private readonly bus: BusConnection,
    private readonly dataSource: DataSource,
    private readonly entries: DirectoryRepository,
    private readonly config: ConsentRecordsConfig,
    private readonly clock: Clock,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.DIRECTORY_KEY) return;
    await Promise.all(REGIONS.map((region) => this.open(region)));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    for (const messages of this.streams) messages.stop();
    await Promise.all(this.loops.map((loop) => loop.catch(() => undefined)));
  }

  /** Durable name of this region's consumer of `region`'s directory. */
  durableOf(region: Region): string {
    return `consent-records-directory-replica-${this.config.REGION}-from-${region}`;
  }

  private async open(region: Region): Promise<void> {
    if (this.stopped) return;
    const stream = regionStreamName(this.bus.prefix, region);
    const durable = this.durableOf(region);
    try {
      try {
        await this.bus.jsm.consumers.info(stream, durable);
      } catch (error) {
        if (!/consumer not found/i.test(error instanceof Error ? error.message : '')) throw error;
        await this.bus.jsm.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: eventSubject(this.bus.prefix, region, DIRECTORY_EVENT),
          max_deliver: -1,
          ack_wait: 30_000 * 1_000_000,
        });
      }
      const consumer = await this.bus.js.consumers.get(stream, durable);
      const messages = await consumer.consume({ max_messages: 256 });
      this.streams.push(messages);
      this.loops.push(
        (async () => {
          for await (const msg of messages) await this.dispatch(region, durable, msg);
        })(),
      );
    } catch (error) {
      // Another region's stream appears when that region first boots; until then, try again.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.open(region);
      }, RETRY_MS);
      timer.unref();
      this.timers.add(timer);
      if (!/stream not found/i.test(error instanceof Error ? error.message : '')) {
        this.logger.warn({ region, err: error instanceof Error ? error.message : String(error) }, 'directory consumer not open yet; retrying');
      }
    }
  }

  private async dispatch(region: Region, durable: string, msg: JsMsg): Promise<void> {
    const id = msg.headers?.get('Nats-Msg-Id') || `${msg.info.stream}:${msg.seq}`;
    try {
      await this.apply(region, durable, id, msg.data);
      msg.ack();
    } catch (error) {
      this.logger.error({ durable, eventId: id, err: error instanceof Error ? error.message : String(error) }, 'directory status not applied; will redeliver');
      msg.nak(Math.min(30_000, 500 * 2 ** Math.min(msg.info.redeliveryCount, 6)));
    }
  }

  /** Records one region's status of a person (once per message id). */
  async apply(region: Region, durable: string, id: string, data: Uint8Array): Promise<void> {
    let event;
    try {
      event = decodeEvent(DIRECTORY_EVENT, data, undefined);
    } catch (error) {
      this.logger.error({ eventId: id, err: error instanceof Error ? error.message : String(error) }, 'undecodable directory status; skipped');
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
