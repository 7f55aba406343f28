import type { BusConnection } from '@svc/bus';
import type { Clock } from '@svc/config';
import { regionStreamName } from '@svc/contracts';
import { BUSINESS_METRICS, type Metrics } from '@svc/telemetry';
import type { DataSource } from 'typeorm';

/** Unpublished outbox rows counted per scrape at most; beyond it the relay is plainly behind. */
export const OUTBOX_COUNT_CAP = 10_000;

interface OutboxBacklog {
  unpublished: number;
  oldestCreatedAt: Date | null;
}

/**
 * The backlog of one outbox: both reads use the partial index of unpublished rows (`seq` where
 * `published_at IS NULL`), so a healthy relay costs two index probes; a relay that is behind costs
 * at most {@link OUTBOX_COUNT_CAP} index entries for the count.
 */
export async function outboxBacklog(dataSource: DataSource, schema: string): Promise<OutboxBacklog> {
  const rows: Array<{ unpublished: string; oldest: Date | null }> = await dataSource.query(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM "${schema}".outbox WHERE published_at IS NULL LIMIT ${OUTBOX_COUNT_CAP}) capped) AS unpublished,
            (SELECT created_at FROM "${schema}".outbox WHERE published_at IS NULL ORDER BY seq LIMIT 1) AS oldest`,
  );
  return { unpublished: Number(rows[0]?.unpublished ?? 0), oldestCreatedAt: rows[0]?.oldest ?? null };
}

/**
 * Gauges of the process's plumbing, computed at scrape time: the backlog of each outbox it relays
 * and the lag of each durable consumer it opened (one JetStream consumer-info request per durable).
 */
export function registerPlatformGauges(metrics: Metrics, sources: { dataSource: DataSource; bus: BusConnection; clock: Clock; outboxSchemas: readonly string[] }): void {
  const { dataSource, bus, clock, outboxSchemas } = sources;
  const backlogs = () => Promise.all(outboxSchemas.map(async (schema) => ({ schema, ...(await outboxBacklog(dataSource, schema)) })));
  metrics.gaugeOf(BUSINESS_METRICS.outboxUnpublished, async (set) => {
    for (const { schema, unpublished } of await backlogs()) set(unpublished, { schema });
  });
  metrics.gaugeOf(BUSINESS_METRICS.outboxOldestAge, async (set) => {
    const now = clock.now().getTime();
    for (const { schema, oldestCreatedAt } of await backlogs()) set(oldestCreatedAt ? Math.max(0, (now - oldestCreatedAt.getTime()) / 1000) : 0, { schema });
  });
  metrics.gaugeOf(BUSINESS_METRICS.consumerLag, async (set) => {
    const stream = regionStreamName(bus.prefix, bus.region);
    const infos = await Promise.all([...bus.durables].map((durable) => bus.jsm.consumers.info(stream, durable)));
    for (const info of infos) set(info.num_pending + info.num_ack_pending, { durable: info.name });
  });
}
