import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBase32 } from '@svc/ids';
import { dropDatabase } from '@svc/persistence';
import { TEST_DATABASE_SERVER, TEST_NATS_URL, deleteTestStreams, http, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';

jest.setTimeout(240_000);

const ROOT = join(__dirname, '..', '..');
const RUN_TS = join(ROOT, 'scripts', 'run-ts.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A block of ports for the launcher below the ephemeral range (routers +1..+3, services +100 and up). */
async function freePortBase(): Promise<number> {
  const canBind = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    const offsets = [1, 2, 3, ...Array.from({ length: 211 }, (_, i) => 100 + i)];
    if ((await Promise.all(offsets.map((offset) => canBind(base + offset)))).every(Boolean)) return base;
  }
  throw new Error('no free block of ports below the ephemeral range');
}

/** Collects a child's output and resolves when a line matches. */
function output(child: ChildProcess): { text: () => string; waitFor: (pattern: RegExp) => Promise<RegExpMatchArray> } {
  let text = '';
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of [...waiters]) {
      const match = text.match(waiter.pattern);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return {
    text: () => text,
    waitFor: (pattern) => {
      const match = text.match(pattern);
      return match ? Promise.resolve(match) : new Promise((resolve) => waiters.push({ pattern, resolve }));
    },
  };
}

/**
 * The README's quick start, run as a newcomer runs it: `npm start`'s launcher brings up the three
 * regions, then scripts/quickstart.sh (the README's block, see test/quickstart/readme-block.spec.ts) creates
 * an application, a flow, a consent session, a webhook receiver, verifies the receipt offline and
 * gets an agent's first grant with DPoP. The test plays the person in the browser: it makes the
 * moves the hosted page makes (POST …/transitions with the session token alone).
 */
describe('the README quick start against a started stack', () => {
  const tag = randomBase32(6);
  const prefix = uniqueBusPrefix();
  let env: NodeJS.ProcessEnv;
  let stack: ChildProcess | undefined;
  let eu = '';

  beforeAll(async () => {
    const portBase = await freePortBase();
    env = {
      ...process.env,
      // The servers named below, even when the test run itself runs on embedded ones.
      SVC_EMBEDDED: '',
      DATABASE_URL_TEMPLATE: `${TEST_DATABASE_SERVER}/svc_quick_${tag}_{region}`,
      NATS_URL: TEST_NATS_URL,
      BUS_PREFIX: prefix,
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      SVC_ROUTER_PORT_BASE: String(portBase),
      SVC_SERVICE_PORT_BASE: String(portBase + 100),
      SVC_READY_TIMEOUT_MS: '180000',
      LOG_LEVEL: 'warn',
    };
    eu = `http://127.0.0.1:${portBase + 2}`;
    stack = spawn(process.execPath, [RUN_TS, join(ROOT, 'deploy', 'local', 'start.ts'), 'monolithic'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started = output(stack);
    await Promise.race([
      started.waitFor(/Ready:/),
      new Promise((_, reject) => stack!.once('exit', (code) => reject(new Error(`stack exited (${code}):\n${started.text()}`)))),
    ]);
  }, 240_000);

  afterAll(async () => {
    if (stack && stack.exitCode === null) {
      const exited = new Promise((resolve) => stack!.once('exit', resolve));
      stack.kill('SIGINT');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 20_000)))]);
      clearTimeout(timer);
      if (stack.exitCode === null) stack.kill('SIGKILL');
    }
    for (const region of ['us', 'eu', 'ap'])
      await dropDatabase(`${TEST_DATABASE_SERVER}/svc_quick_${tag}_${region}`).catch(() => undefined);
    await deleteTestStreams(prefix);
    rmSync(join(ROOT, '.quickstart'), { recursive: true, force: true });
  }, 60_000);

  it('runs every step of the quick start within a minute', async () => {
    const startedAt = Date.now();
    const script = spawn('bash', [join(ROOT, 'scripts', 'quickstart.sh')], {
      cwd: ROOT,
      env: { ...env, BASE: eu, HOOK_PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = output(script);
    const exited = new Promise<number | null>((resolve) => script.once('exit', resolve));

    // The person in the browser: the hosted page's own moves, authorized by the session token alone.
    const [, url] = await Promise.race([
      out.waitFor(/Open in your browser: (\S+)/),
      exited.then(() => {
        throw new Error(out.text());
      }),
    ]);
    const token = new URL(url!).pathname.split('/').pop()!;
    expect((await http('GET', url!)).status).toBe(200);
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      const moved = await http('POST', `${eu}/api/v1/decisions/${token}/transitions`, { json: { action } });
      expect([action, moved.status]).toEqual([action, 200]);
    }

    const code = await exited;
    if (code !== 0) throw new Error(`quickstart.sh exited ${code}:\n${out.text()}`);
    const text = out.text();
    expect(text).toMatch(/"event":"consent\.granted"/);
    expect(text).toMatch(/"valid":\s*true/);
    expect(text).toMatch(/Grant ath_eu_[a-z2-7]+: allow, agent token type DPoP/);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
  });
});
