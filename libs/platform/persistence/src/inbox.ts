import type { DataSource, EntityManager } from 'typeorm';

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
    const inserted: unknown[] = await manager.query(
      `INSERT INTO "${schema}".inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING message_id`,
      [consumer, messageId],
    );
    if (inserted.length === 0) return false;
    await work(manager);
    return true;
  });
}
