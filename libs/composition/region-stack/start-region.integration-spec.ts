import { createServer, type Server } from 'node:net';
import { Client } from 'pg';
import {
  TEST_DATABASE_SERVER,
  createTestDatabase,
  deleteTestStreams,
  freePort,
  testStreams,
  testEnv,
  uniqueBusPrefix,
  waitFor,
  type TestDatabase,
} from '@svc/testing';
import { startRegion } from './start-region';

/** Kinds of handle a leaked pool, bus connection, listener or polling loop keeps open. */
const LEAKABLE = new Set(['TCPSocketWrap', 'TCPServerWrap', 'Timeout', 'PipeWrap']);

function openHandles(): number {
  return process.getActiveResourcesInfo().filter((kind) => LEAKABLE.has(kind)).length;
}

async function onServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function sessionsOn(database: TestDatabase): Promise<number> {
  return onServer(
    async (client) =>
      (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database.name])).rows[0]
        ?.n ?? -1,
  );
}

/** Database sessions left once a closing pool has had time to end them. */
async function sessionsAfterSettling(database: TestDatabase): Promise<number> {
  await waitFor(async () => (await sessionsOn(database)) === 0, 10_000).catch(() => undefined);
  return sessionsOn(database);
}

/** Resolves once the handles opened by a failed boot are all closed again (timers of a closed pool fire late). */
async function handlesBackTo(baseline: number): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (openHandles() > baseline && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return openHandles();
}

/**
 * Issue 14 item 14: a region whose boot fails part of the way releases everything the boot had
 * reached — database pool, bus connection, relays and polling loops — and leaves the test worker
 * nothing to be force-exited for.
 */
describe('a region whose boot fails part of the way', () => {
  let database: TestDatabase;
  let prefix: string;

  beforeEach(async () => {
    database = await createTestDatabase('boot_failure');
    prefix = uniqueBusPrefix();
  });

  afterEach(async () => {
    await database.drop();
    await deleteTestStreams(prefix);
  });

  const config = (httpPort: number) =>
    testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, HTTP_PORT: String(httpPort), SERVICE_NAME: 'boot-failure' });

  it('releases its database sessions, bus connection and loops when its HTTP port is taken after everything else started', async () => {
    const port = await freePort();
    const occupant: Server = createServer();
    await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve));
    try {
      const baseline = openHandles();
      await expect(startRegion(config(port))).rejects.toThrow(/EADDRINUSE/);
      // The boot had reached its stream and migrated its database before failing.
      expect(await testStreams(prefix)).toEqual([`${prefix.toUpperCase()}_US_DEAD_LETTERS`, `${prefix.toUpperCase()}_US_EVENTS`]);
      expect(await handlesBackTo(baseline)).toBeLessThanOrEqual(baseline);
      expect(await sessionsAfterSettling(database)).toBe(0);
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
    }
  }, 60_000);

  it('releases them when a schema migration fails after the database and the bus are open', async () => {
    const setup = new Client({ connectionString: database.url });
    await setup.connect();
    // A table in the way of the last feature's first migration.
    await setup.query('CREATE SCHEMA audit; CREATE TABLE audit.entries (id int)');
    await setup.end();
    const baseline = openHandles();
    await expect(startRegion(config(0))).rejects.toThrow(/Migration .* of schema audit failed/);
    expect(await testStreams(prefix)).toEqual([`${prefix.toUpperCase()}_US_DEAD_LETTERS`, `${prefix.toUpperCase()}_US_EVENTS`]);
    expect(await handlesBackTo(baseline)).toBeLessThanOrEqual(baseline);
    expect(await sessionsAfterSettling(database)).toBe(0);
  }, 60_000);
});
