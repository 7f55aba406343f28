import { createTestDatabase, type TestDatabase } from '@svc/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from './data-source';
import { GroupCommitQueue, isTransactionConflict, type JobOutcome } from './group-commit';

/** Architecture: hot write paths commit in groups, and one bad request never fails its batch's others. */
describe('group commit against real Postgres', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('group_commit');
    dataSource = createDataSource({ url: database.url, poolSize: 4, applicationName: 'group-commit-test' });
    await dataSource.initialize();
    await dataSource.query('CREATE TABLE things (id text PRIMARY KEY, tenant text NOT NULL)');
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** Inserts every job's row with ONE statement in one transaction, like the grant and record writers. */
  const insertBatch =
    (batches: string[][]) =>
    async (ids: string[]): Promise<Array<JobOutcome<string>>> => {
      batches.push(ids);
      await dataSource.transaction((manager) =>
        manager.query('INSERT INTO things (id, tenant) SELECT id, $2 FROM unnest($1::text[]) AS id', [ids, 'tenant']),
      );
      return ids.map((id) => ({ ok: true, value: id }));
    };

  it('commits every valid job of a batch that Postgres refused because of one poison value, and fails only that one', async () => {
    const batches: string[][] = [];
    const queue = new GroupCommitQueue<string, string>(insertBatch(batches), {
      maxBatch: 64,
      retry: { retryable: isTransactionConflict, maxAttempts: 3 },
    });
    const ids = Array.from({ length: 30 }, (_, index) => (index % 10 === 3 ? `poison-${index}-\u0000` : `valid-${index}`));
    const settled = await Promise.allSettled(ids.map((id) => queue.submit(id)));

    const rejected = settled.flatMap((outcome, index) => (outcome.status === 'rejected' ? [ids[index]] : []));
    expect(rejected).toEqual(ids.filter((id) => id.startsWith('poison')));
    for (const outcome of settled.filter((o) => o.status === 'rejected')) {
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({ code: '22021' });
    }
    const stored = (await dataSource.query('SELECT id FROM things WHERE id LIKE $1 ORDER BY id', ['valid-%'])) as Array<{ id: string }>;
    expect(stored.map((row) => row.id).sort()).toEqual(ids.filter((id) => id.startsWith('valid')).sort());
    expect(batches.some((batch) => batch.length > 1)).toBe(true);
  });

  it('answers a job whose row already exists with its own error while the rest of its batch commits', async () => {
    await dataSource.query(`INSERT INTO things (id, tenant) VALUES ('taken', 'other')`);
    const batches: string[][] = [];
    const queue = new GroupCommitQueue<string, string>(insertBatch(batches), { maxBatch: 64 });
    const settled = await Promise.allSettled(['fresh-a', 'taken', 'fresh-b'].map((id) => queue.submit(id)));
    expect(settled.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    const stored = (await dataSource.query(`SELECT id FROM things WHERE id LIKE 'fresh-%' ORDER BY id`)) as Array<{ id: string }>;
    expect(stored.map((row) => row.id)).toEqual(['fresh-a', 'fresh-b']);
  });
});
