import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { migrateRegion, regionMigrationFingerprint, startRegion } from '@svc/region-stack';
import type { RunningProcess } from '@svc/server';
import {
  createTestDatabaseFrom,
  deleteTestStreams,
  freePort,
  http,
  testEnv,
  uniqueBusPrefix,
  type HttpResult,
  type TestDatabase,
} from '@svc/testing';
import { DataSource } from 'typeorm';

type Json = Record<string, unknown>;

const ROOT = join(__dirname, '..', '..', '..');
const RUN_TS = join(ROOT, 'scripts', 'run-ts.js');

jest.setTimeout(240_000);

/**
 * The recovery point under a real crash: the region runs as its own process, armed to SIGKILL
 * itself at `idempotency.after-commit` (the request's business transaction committed, its answer
 * not stored). After a restart and the claim's lock, retries with the same key are refused with
 * 409 `idempotency_key_answer_lost` and the handler's effect exists exactly once.
 */
describe('a region killed between a request commit and its stored answer', () => {
  let database: TestDatabase | undefined;
  let prefix: string;
  let env: Record<string, string>;
  let url: string;
  let child: ChildProcess | undefined;
  let running: RunningProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabaseFrom('idempotency_kill_us', {
      fingerprint: regionMigrationFingerprint(),
      build: async (databaseUrl: string) => {
        await migrateRegion(databaseUrl);
      },
    });
    prefix = uniqueBusPrefix();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    env = testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      HTTP_PORT: String(port),
      REGION_URLS: `us=${url}`,
      PUBLIC_BASE_URL: url,
      SERVICE_NAME: 'e2e-kill-us',
      DATABASE_POOL_SIZE: '4',
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  async function untilReady(exited: Promise<unknown>): Promise<void> {
    const deadline = Date.now() + 180_000;
    let gone = false;
    void exited.then(() => (gone = true));
    while (Date.now() < deadline && !gone) {
      const ready = await http('GET', `${url}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    throw new Error('the region process did not become ready');
  }

  it('never runs the request again: retries after the restart and the lock are 409 idempotency_key_answer_lost, one agent exists', async () => {
    // The application and its token, made by the region in this process, which then stops.
    running = await startRegion(env);
    const created = await running.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'killed', environment: 'development' }));
    await running.close();
    running = undefined;
    const auth = { authorization: `Bearer ${created.apiToken}` };

    let stderr = '';
    child = spawn(process.execPath, [RUN_TS, join(ROOT, 'deploy', 'local', 'region-main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env, SVC_FAULT_POINTS: 'idempotency.after-commit' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
    await untilReady(exited);

    const idempotencyKey = 'kill-after-commit-1';
    const body = { name: 'shopper of a killed region' };
    /** The answer, or the error of a connection that closed without one. */
    const post = (): Promise<HttpResult | { dropped: string }> =>
      http('POST', `${url}/api/v1/agents`, { headers: { ...auth, 'idempotency-key': idempotencyKey }, json: body }).then(
        (res) => res,
        (error: unknown) => ({ dropped: String(error) }),
      );
    // The process dies before it answers.
    expect(await post()).toEqual({ dropped: expect.any(String) });
    expect(await exited).toBe('SIGKILL');
    expect(stderr).toContain('fault point idempotency.after-commit reached');

    // The restarted region, on the same database.
    running = await startRegion(env);
    // The claim's lock (30 s) passes.
    await running.app
      .get(DataSource)
      .query(`UPDATE idempotency.requests SET locked_until = now() - interval '1 second' WHERE key = $1`, [idempotencyKey]);
    for (let retry = 0; retry < 3; retry += 1) {
      const again = await post();
      if ('dropped' in again) throw new Error(again.dropped);
      expect([
        again.status,
        again.body.reason_code,
        (again.body.detail as Json | undefined)?.field,
        again.headers.get('retry-after'),
      ]).toEqual([409, 'idempotency_key_answer_lost', 'Idempotency-Key', null]);
    }
    const agents = await http<{ data: Json[] }>('GET', `${url}/api/v1/agents?limit=100`, { headers: auth });
    expect(agents.body.data.map((agent) => agent.name)).toEqual([body.name]);
  });
});
