import { TEST_DATABASE_SERVER, TcpProxy, http, waitFor } from '@svc/testing';
import { Client } from 'pg';
import { startRegions, type TestRegions } from '../support/regions';
import { newsletterApp, recordNewsletterConsent, type NewsletterApp, type RecordAnswer } from './outage-support';

/** Issue 20 item 3: how long the database stays away. */
const OUTAGE_MS = 10_000;

/**
 * A region whose Postgres goes away for 10 s under steady load. The region's every database
 * connection goes through a proxy this test cuts (the shared server is never touched). While it is
 * away the API answers 503 with `Retry-After` (never a 500) and readiness says so; nothing it
 * acknowledged is lost, and it serves again once the database is back.
 */
describe('a region whose database goes away for 10 s under steady load', () => {
  let proxy: TcpProxy;
  let stack: TestRegions;
  let us: string;
  let directUrl: string;
  let app: NewsletterApp;
  let sequence = 0;

  const recordConsent = (): Promise<RecordAnswer> => recordNewsletterConsent(us, app, 'db-outage', ++sequence);

  async function readFlow(): Promise<RecordAnswer> {
    const res = await http('GET', `${us}/api/v1/flows/${app.flowId}`, { headers: app.headers });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), reasonCode: res.body.reason_code };
  }

  async function storedRecordIds(): Promise<Set<string>> {
    const client = new Client({ connectionString: directUrl });
    await client.connect();
    try {
      const rows = await client.query<{ id: string }>('SELECT id FROM consent_records.records');
      return new Set(rows.rows.map((row) => row.id));
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    proxy = await TcpProxy.start(TEST_DATABASE_SERVER);
    stack = await startRegions('db_outage', {
      regions: ['us'],
      databaseUrl: (url) => {
        directUrl = url;
        const proxied = new URL(url);
        proxied.host = `127.0.0.1:${proxy.port}`;
        return proxied.toString();
      },
    });
    us = stack.url.us;
    app = await newsletterApp(stack.process.us, us);
  });

  afterAll(async () => {
    proxy?.restore();
    await stack?.close();
    await proxy?.close();
  });

  it('answers 503 with Retry-After while it is away, never 500, loses nothing it acknowledged, and serves again after', async () => {
    expect((await recordConsent()).status).toBe(201);

    proxy.cut();
    const outageEnds = Date.now() + OUTAGE_MS;
    const answers: Array<Promise<RecordAnswer>> = [];
    let readinessDuring: Awaited<ReturnType<typeof http>> | undefined;
    // A write and a read every 200 ms, whatever the previous ones are waiting for.
    while (Date.now() < outageEnds) {
      answers.push(recordConsent(), readFlow());
      if (!readinessDuring && Date.now() > outageEnds - OUTAGE_MS / 2) readinessDuring = await http('GET', `${us}/readyz`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const during = await Promise.all(answers);
    proxy.restore();

    const tally: Record<number, number> = {};
    for (const { status } of during) tally[status] = (tally[status] ?? 0) + 1;
    expect(during.length).toBeGreaterThanOrEqual(60);
    // Every answer is either served (a write that got in before the cut) or a clean 503.
    expect(Object.keys(tally).filter((status) => !['200', '201', '503'].includes(status))).toEqual([]);
    expect(tally[503]).toBeGreaterThan(0);
    for (const answer of during.filter((a) => a.status === 503)) {
      expect(answer.retryAfter).toMatch(/^[1-9][0-9]*$/);
      expect(answer.reasonCode).toBe('service_unavailable');
    }
    expect(readinessDuring?.status).toBe(503);
    expect(readinessDuring?.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);

    // Serves again: readiness, reads and writes.
    await waitFor(async () => (await http('GET', `${us}/readyz`)).status === 200, 30_000, 250);
    await waitFor(async () => (await recordConsent()).status === 201, 30_000, 250);
    expect((await readFlow()).status).toBe(200);

    // Nothing acknowledged is lost.
    const stored = await storedRecordIds();
    for (const answer of during.filter((a) => a.status === 201)) expect(stored.has(answer.id!)).toBe(true);
  }, 120_000);
});
