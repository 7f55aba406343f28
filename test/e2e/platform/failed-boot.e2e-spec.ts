import { createServer, type Server } from 'node:net';
import { randomBase32 } from '@svc/ids';
import { Client } from 'pg';
import { TEST_DATABASE_SERVER, freePort, testStreams, uniqueBusPrefix } from '@svc/testing';
import { startRegions } from '../support/regions';

/** Kinds of handle a leaked pool, bus connection, listener or polling loop keeps open. */
const LEAKABLE = new Set(['TCPSocketWrap', 'TCPServerWrap', 'Timeout', 'PipeWrap']);
const openHandles = (): number => process.getActiveResourcesInfo().filter((kind) => LEAKABLE.has(kind)).length;

async function databasesNamed(prefix: string): Promise<string[]> {
  const client = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1', [`${prefix}%`])).rows.map(
      (row) => row.datname,
    );
  } finally {
    await client.end();
  }
}

/**
 * Issue 14 item 14: when one region of a test stack fails to boot, the regions booted before it
 * and everything the failing one reached are torn down: no database, no stream, no open handle
 * is left for the test worker to be force-exited over.
 */
describe('test regions whose boot fails part of the way', () => {
  it('leave no database, no stream and no open handle behind', async () => {
    const label = `failed_boot_${randomBase32(6).replace(/[^a-z0-9]/g, 'a')}`;
    const prefix = uniqueBusPrefix();
    const port = await freePort();
    const occupant: Server = createServer();
    await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve));
    try {
      const baseline = openHandles();
      // us boots completely; eu migrates its database and opens its stream, then cannot listen.
      await expect(startRegions(label, { regions: ['us', 'eu'], prefix, ports: { eu: port } })).rejects.toThrow(/EADDRINUSE/);
      expect(await databasesNamed(`svc_test_${label}_`)).toEqual([]);
      expect(await testStreams(prefix)).toEqual([]);
      const deadline = Date.now() + 10_000;
      while (openHandles() > baseline && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(openHandles()).toBeLessThanOrEqual(baseline);
    } finally {
      await new Promise((resolve) => occupant.close(resolve));
    }
  }, 120_000);
});
