import { createDataSource, createOutboxAndInbox } from '@svc/persistence';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import type { DataSource } from 'typeorm';
import { OUTBOX_COUNT_CAP, outboxBacklogs } from './platform-gauges';

/** The outbox gauges of /metrics read the real outbox tables (real Postgres). */
describe('outbox backlog gauges', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('platform_gauges');
    dataSource = createDataSource({ url: database.url, poolSize: 2, applicationName: 'platform-gauges-test' });
    await dataSource.initialize();
    for (const schema of ['busy', 'idle']) {
      await dataSource.query(`CREATE SCHEMA ${schema}`);
      const runner = dataSource.createQueryRunner();
      await createOutboxAndInbox(runner, schema);
      await runner.release();
    }
    const insert = (schema: string, count: number, publishedAt: string | null, createdAt: string) =>
      dataSource.query(
        `INSERT INTO ${schema}.outbox (id, event_type, payload, created_at, published_at) SELECT gen_random_uuid(), 'x', '\\x00', $1, $2 FROM generate_series(1, $3)`,
        [createdAt, publishedAt, count],
      );
    await insert('busy', 5, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
    await insert('busy', 3, null, '2026-01-01T00:01:00Z');
    await insert('busy', 2, null, '2026-01-01T00:02:00Z');
    await insert('idle', 4, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('counts unpublished rows and finds the oldest one per schema, zero and none for a drained outbox', async () => {
    expect(await outboxBacklogs(dataSource, ['busy', 'idle'])).toEqual([
      { schema: 'busy', unpublished: 5, oldestCreatedAt: new Date('2026-01-01T00:01:00Z') },
      { schema: 'idle', unpublished: 0, oldestCreatedAt: null },
    ]);
  });

  it('stops counting at the cap, so a relay far behind costs a bounded read', async () => {
    await dataSource.query(
      `INSERT INTO idle.outbox (id, event_type, payload) SELECT gen_random_uuid(), 'x', '\\x00' FROM generate_series(1, $1)`,
      [OUTBOX_COUNT_CAP + 5],
    );
    const [idle] = await outboxBacklogs(dataSource, ['idle']);
    expect(idle!.unpublished).toBe(OUTBOX_COUNT_CAP);
  });

  it('asks nothing without a relayed schema', async () => {
    expect(await outboxBacklogs(dataSource, [])).toEqual([]);
  });
});
