import type { DataSource, EntityManager } from 'typeorm';
import { queryRows } from './data-source';

/**
 * Runs `work` at most once per (consumer, message id): the inbox row and the work's writes commit
 * in one transaction, so a redelivered or republished message is skipped. Returns false when the
 * message had already been processed.
 */
export async function processOnce(
  dataSource: DataSource,
  schema: string,
  consumer: string,
  messageId: string,
  work: (manager: EntityManager) => Promise<void>,
): Promise<boolean> {
  return dataSource.transaction(async (manager) => {
    if ((await markProcessed(manager, schema, consumer, [messageId])).length === 0) return false;
    await work(manager);
    return true;
  });
}

/**
 * Marks a batch of messages as processed by `consumer` in the schema's inbox, inside the caller's
 * transaction, with one statement; returns the ids not seen before (the only ones to act on).
 */
export async function markProcessed(
  manager: EntityManager,
  schema: string,
  consumer: string,
  messageIds: readonly string[],
): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const rows = await queryRows<{ message_id: string }>(
    manager,
    `INSERT INTO "${schema}".inbox (consumer, message_id) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING RETURNING message_id`,
    [consumer, messageIds],
  );
  return rows.map((row) => row.message_id);
}

/** True when `consumer` already processed the message (a check before costly work; the mark itself is {@link processOnce}). */
export async function wasProcessed(
  queryable: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  schema: string,
  consumer: string,
  messageId: string,
): Promise<boolean> {
  const rows = await queryRows(queryable, `SELECT 1 FROM "${schema}".inbox WHERE consumer = $1 AND message_id = $2`, [consumer, messageId]);
  return rows.length > 0;
}

/**
 * The messages among `messageIds` that `consumer` already processed, in one statement (a batch's
 * check before costly work; the marks themselves are {@link markProcessed}).
 */
export async function processedAmong(
  queryable: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  schema: string,
  consumer: string,
  messageIds: readonly string[],
): Promise<Set<string>> {
  if (messageIds.length === 0) return new Set();
  const rows = await queryRows<{ message_id: string }>(
    queryable,
    // One probe of the primary key per id (the lateral subquery cannot become a join): a plan
    // chosen on a young inbox's stale statistics would otherwise scan every row of the consumer.
    `SELECT m.id AS message_id FROM unnest($2::text[]) AS m(id)
     CROSS JOIN LATERAL (SELECT 1 FROM "${schema}".inbox i WHERE i.consumer = $1 AND i.message_id = m.id LIMIT 1) seen`,
    [consumer, messageIds],
  );
  return new Set(rows.map((row) => row.message_id));
}
