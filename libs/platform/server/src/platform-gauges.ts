import type { BusConnection } from '@svc/bus';
import type { Clock } from '@svc/config';
import { regionStreamName } from '@svc/contracts';
import { BUSINESS_METRICS, type Metrics } from '@svc/telemetry';
import type { DataSource } from 'typeorm';

/** Unpublished outbox rows counted per scrape at most; beyond it the relay is plainly behind. */
export const OUTBOX_COUNT_CAP = 10_000;

interface OutboxBacklog {
  schema: string;
  unpublished: number;
  oldestCreatedAt: Date | null;
}

/**
 * The backlog of each outbox, in one statement (one pooled connection per scrape): both reads of
 * a schema use the partial index of unpublished rows (`seq` where `published_at IS NULL`), so a
 * healthy relay costs two index probes; a relay that is behind costs at most
 * {@link OUTBOX_COUNT_CAP} index entries for the count.
 */
export async function outboxBacklogs(dataSource: DataSource, schemas: readonly string[]): Promise<OutboxBacklog[]> {
  if (schemas.length === 0) return [];
  const perSchema = schemas.map(
    (schema, i) =>
      `SELECT $${i + 1}::text AS schema,
              (SELECT count(*) FROM (SELECT 1 FROM "${schema}".outbox WHERE published_at IS NULL LIMIT ${OUTBOX_COUNT_CAP}) capped) AS unpublished,
              (SELECT created_at FROM "${schema}".outbox WHERE published_at IS NULL ORDER BY seq LIMIT 1) AS oldest`,
  );
  const rows: Array<{ schema: string; unpublished: string; oldest: Date | null }> = await dataSource.query(perSchema.join(' UNION ALL '), [
    ...schemas,
  ]);
  return rows.map((row) => ({ schema: row.schema, unpublished: Number(row.unpublished), oldestCreatedAt: row.oldest }));
}

/**
 * Gauges of the process's plumbing, computed at scrape time: the backlog of each outbox it relays
 * and the lag of each durable consumer it opened (one JetStream consumer-info request per durable).
 */
export function registerPlatformGauges(
  metrics: Metrics,
  sources: { dataSource: DataSource; bus: BusConnection; clock: Clock; outboxSchemas: readonly string[] },
): void {
  const { dataSource, bus, clock, outboxSchemas } = sources;
  const backlogs = () => outboxBacklogs(dataSource, outboxSchemas);
  metrics.gaugeOf(BUSINESS_METRICS.outboxUnpublished, async (set) => {
    for (const { schema, unpublished } of await backlogs()) set(unpublished, { schema });
  });
  metrics.gaugeOf(BUSINESS_METRICS.outboxOldestAge, async (set) => {
    const now = clock.now().getTime();
    for (const { schema, oldestCreatedAt } of await backlogs())
      set(oldestCreatedAt ? Math.max(0, (now - oldestCreatedAt.getTime()) / 1000) : 0, { schema });
  });
  metrics.gaugeOf(BUSINESS_METRICS.consumerLag, async (set) => {
    const stream = regionStreamName(bus.prefix, bus.region);
    const infos = await Promise.all([...bus.durables].map((durable) => bus.jsm.consumers.info(stream, durable)));
    for (const info of infos) set(info.num_pending + info.num_ack_pending, { durable: info.name });
  });
}
