import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditChain } from '@svc/audit-chain';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { startRegion } from '@svc/region-stack';
import type { RunningProcess } from '@svc/server';
import {
  LoopbackReceiver,
  TEST_DATABASE_SERVER,
  createTestDatabase,
  deleteTestStreams,
  freePort,
  http,
  testEnv,
  uniqueBusPrefix,
  waitFor,
  type TestDatabase,
} from '@svc/testing';
import { Client } from 'pg';

type Json = Record<string, unknown>;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path)) ?? 'pgbouncer';
/** PgBouncer's server connections per database (max_db_connections below). */
const SERVER_POOL = 4;

jest.setTimeout(180_000);

/**
 * Issue 20 item 6, the deployment shape of compose and Helm: a region whose DATABASE_URL goes
 * through PgBouncer in transaction pooling (pool_mode = transaction, a server pool of 4) and whose
 * DATABASE_DIRECT_URL reaches Postgres for the outbox LISTEN and the boot migrations. It boots,
 * takes writes that fan out to the bus, the audit chain and webhooks, and the database sees at most
 * PgBouncer's pool plus the direct LISTEN connection. Needs the pgbouncer binary (Debian:
 * `apt-get install pgbouncer`, which CI does), from /usr/sbin, /usr/bin or the PATH.
 */
describe('a region behind PgBouncer in transaction pooling', () => {
  const prefix = uniqueBusPrefix();
  const receiver = new LoopbackReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'svc-pgbouncer-'));
  let bouncer: ChildProcess | undefined;
  let bouncerLog = '';
  let database: TestDatabase;
  let region: RunningProcess | undefined;
  let url: string;
  let sampler: Client;
  let peak = 0;
  let timer: NodeJS.Timeout | undefined;

  beforeAll(async () => {
    await receiver.start();
    database = await createTestDatabase('pgbouncer');
    const server = new URL(TEST_DATABASE_SERVER);
    const bouncerPort = await freePort();
    writeFileSync(join(dir, 'users.txt'), `"${decodeURIComponent(server.username)}" "${decodeURIComponent(server.password)}"\n`);
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || '5432'}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${bouncerPort}`,
        'unix_socket_dir =',
        `auth_type = ${server.password ? 'plain' : 'trust'}`,
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 200',
        `default_pool_size = ${SERVER_POOL}`,
        `max_db_connections = ${SERVER_POOL}`,
        'ignore_startup_parameters = extra_float_digits',
        '',
      ].join('\n'),
    );
    // PgBouncer refuses to run as root: under root (a CI container) it switches to `nobody`, which
    // must be able to read its configuration.
    chmodSync(dir, 0o755);
    const asUser = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
    bouncer = spawn(PGBOUNCER, [...asUser, join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
    bouncer.stderr?.on('data', (chunk: Buffer) => (bouncerLog += chunk.toString()));
    await waitFor(async () => {
      const probe = new Client({
        connectionString: `postgres://${server.username}${server.password ? `:${server.password}` : ''}@127.0.0.1:${bouncerPort}/${database.name}`,
      });
      try {
        await probe.connect();
        await probe.query('SELECT 1');
        return true;
      } catch {
        return false;
      } finally {
        await probe.end().catch(() => undefined);
      }
    }, 15_000).catch((error: unknown) => {
      throw new Error(`PgBouncer did not answer: ${String(error)}\n${bouncerLog}`);
    });
    sampler = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres`, application_name: 'test-pgbouncer-sampler' });
    await sampler.connect();
    const sample = async () => {
      const { rows } = await sampler.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database.name]);
      peak = Math.max(peak, Number(rows[0]?.n));
    };
    timer = setInterval(() => void sample().catch(() => undefined), 100);
    const port = await freePort();
    const pooled = new URL(database.url);
    pooled.hostname = '127.0.0.1';
    pooled.port = String(bouncerPort);
    region = await startRegion(
      testEnv({
        REGION: 'us',
        DATABASE_URL: pooled.toString(),
        DATABASE_DIRECT_URL: database.url,
        DATABASE_POOL_SIZE: '10',
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        REGION_URLS: `us=http://127.0.0.1:${port}`,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        SERVICE_NAME: 'e2e-pgbouncer',
      }),
    );
    url = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (timer) clearInterval(timer);
    await region?.close();
    await sampler?.end().catch(() => undefined);
    if (bouncer && bouncer.exitCode === null) {
      const exited = new Promise((resolve) => bouncer?.once('exit', resolve));
      bouncer.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    await deleteTestStreams(prefix);
    await receiver.close();
    if (process.env.TEST_LOG_LEVEL) process.stderr.write(bouncerLog);
    rmSync(dir, { recursive: true, force: true });
  });

  it('boots, records consents concurrently, delivers their webhooks once and appends them to a verifying audit chain', async () => {
    const created = await region!.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Pooled', environment: 'development' }));
    const token = created.apiToken;
    const flow = await http<Json>('POST', `${url}/api/v1/flows`, {
      headers: auth(token),
      json: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    expect(
      (await http('POST', `${url}/api/v1/flows/${String(flow.body.id)}/activate`, { headers: auth(token), json: {} })).status,
    ).toBeLessThan(300);
    const sub = await http('POST', `${url}/api/v1/applications/${created.application.id}/webhook_subscriptions`, {
      headers: auth(token),
      json: { url: receiver.url('/hook'), events: ['consent.granted'] },
    });
    expect(sub.status).toBe(201);
    const ids = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await http<Json>('POST', `${url}/api/v1/consent_records`, {
          headers: auth(token),
          json: {
            flow_id: flow.body.id,
            subject: { external_id: `pooled-${i}` },
            decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
            captured_at: new Date(Date.now() - 60_000).toISOString(),
            idempotency_key: `pooled-${i}`,
          },
        });
        expect(res.status).toBe(201);
        return String(res.body.id);
      }),
    );
    const deliveriesOf = (id: string) => receiver.received.filter((r) => (r.body.data as Json | undefined)?.record_id === id);
    for (const id of ids) await waitFor(() => deliveriesOf(id).length > 0, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const id of ids) expect(deliveriesOf(id)).toHaveLength(1);
    const chain = region!.app.get(AuditChain);
    await waitFor(async () => {
      const verification = await chain.verifyChain.execute();
      return verification.valid && verification.verifiedSize > ids.length;
    }, 30_000);
    // The region's scheduler signs its own first checkpoint within a poll of the chain's first
    // entries, so this one may be the first or the second: the chain verifies with every one of
    // them, and from the one signed here.
    const checkpoint = await chain.createCheckpoint.execute();
    if (!checkpoint) throw new Error('no checkpoint was signed');
    const verification = await chain.verifyChain.execute();
    expect(verification).toMatchObject({ valid: true, invalidCheckpoints: [] });
    expect(verification.checkpointsVerified).toBeGreaterThanOrEqual(1);
    expect(await chain.verifyChain.execute(checkpoint.sequence)).toMatchObject({ valid: true, verifiedFromIndex: checkpoint.treeSize });
  });

  it('holds at most PgBouncer’s server pool plus the direct LISTEN connection on the database', () => {
    // The boot migrations' direct connection is closed before the region serves; what stays is the
    // pooled server connections (4) and the outbox LISTEN connection (1).
    console.log(`connections behind PgBouncer: peak ${peak} (server pool ${SERVER_POOL} + 1 LISTEN; the region's own pool is 10)`);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(SERVER_POOL + 2);
  });
});
