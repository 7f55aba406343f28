import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBase32 } from '@svc/ids';
import { dropDatabase } from '@svc/persistence';
import {
  TEST_DATABASE_SERVER,
  TEST_NATS_URL,
  deleteTestStreams,
  freePort,
  http,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  waitFor,
} from '@svc/testing';
import { ConnectionSampler } from './support/connection-sampler';

const ROOT = join(__dirname, '..', '..');
const RUN_TS = join(ROOT, 'scripts', 'run-ts.js');
/** `npm run admin` and the launcher's services run as compiled JavaScript (see scripts/run-compiled.js). */
const RUN_COMPILED = join(ROOT, 'scripts', 'run-compiled.js');
const ADMIN_CLI = join(ROOT, 'tools', 'admin', 'cli.ts');
const run = promisify(execFile);

/** Offsets from the port base that the launcher binds: routers +1..+3, services +100..+310. */
const PORT_OFFSETS = [1, 2, 3, ...Array.from({ length: 211 }, (_, i) => 100 + i)];

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port base whose whole block is free, below the kernel's ephemeral range (32768 and up), so
 * the outgoing connections and port-0 listeners of test files running alongside cannot take a
 * port between this check and the launcher binding it.
 */
async function freePortBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    const free = await Promise.all(PORT_OFFSETS.map((offset) => canBind(base + offset)));
    if (free.every(Boolean)) return base;
  }
  throw new Error('no free block of ports below the ephemeral range');
}

/** Collects a child's output and resolves when it matches. */
function outputOf(child: ChildProcess): { text: () => string; waitFor: (pattern: RegExp) => Promise<RegExpMatchArray> } {
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
 * Issue "Foundation", Done when: the local stack starts three regions whose routers answer
 * /readyz, the admin CLI prints an application, /api/v1/me answers 200 with its token and 401
 * without, a foreign-region id answers 421, and Ctrl-C stops everything cleanly. Run for both modes.
 */
/** Issue 20 item 6: the whole local stack's Postgres connections, at their peak, stay within these. */
const CONNECTION_LIMIT = { monolithic: 30, distributed: 60 } as const;

describe.each(['monolithic', 'distributed'] as const)('the local stack in %s mode', (mode) => {
  const tag = randomBase32(6);
  const sampler = new ConnectionSampler(`svc_stack_${tag}_`);
  const prefix = uniqueBusPrefix();
  let portBase = 0;
  let env: NodeJS.ProcessEnv = {};
  const router = (offset: 1 | 2 | 3) => `http://127.0.0.1:${portBase + offset}`;
  let stack: ChildProcess;
  let output = '';

  beforeAll(async () => {
    portBase = await freePortBase();
    env = {
      ...process.env,
      // The servers named below, even when the test run itself runs on embedded ones.
      SVC_EMBEDDED: '',
      DATABASE_URL_TEMPLATE: `${TEST_DATABASE_SERVER}/svc_stack_${tag}_{region}`,
      NATS_URL: TEST_NATS_URL,
      BUS_PREFIX: prefix,
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      SVC_ROUTER_PORT_BASE: String(portBase),
      SVC_SERVICE_PORT_BASE: String(portBase + 100),
      SVC_READY_TIMEOUT_MS: '240000',
      LOG_LEVEL: 'warn',
      // The launcher's own SMTP sink, whatever the test runner has configured.
      SMTP_URL: '',
    };
    stack = spawn(process.execPath, [RUN_TS, join(ROOT, 'deploy', 'local', 'start.ts'), mode], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    stack.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('Ready:')) {
          clearInterval(timer);
          resolve();
        }
      }, 100);
      stack.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`stack exited (${code}):\n${output}`));
      });
    });
    await sampler.start();
  }, 300_000);

  afterAll(async () => {
    await sampler.stop();
    if (stack && stack.exitCode === null) {
      stack.kill('SIGKILL');
    }
    for (const region of ['us', 'eu', 'ap'])
      await dropDatabase(`${TEST_DATABASE_SERVER}/svc_stack_${tag}_${region}`).catch(() => undefined);
    await deleteTestStreams(prefix);
    rmSync(join(ROOT, '.quickstart'), { recursive: true, force: true });
  }, 60_000);

  it('prints the three router URLs once every router answers /readyz', async () => {
    for (const [region, offset] of [
      ['us', 1],
      ['eu', 2],
      ['ap', 3],
    ] as const) {
      expect(output).toContain(`${region}  ${router(offset)}`);
      expect((await http('GET', `${router(offset)}/readyz`)).status).toBe(200);
    }
  });

  it('creates an application with the admin CLI, whose token works through the us router', async () => {
    const { stdout } = await run(
      process.execPath,
      [RUN_COMPILED, ADMIN_CLI, 'create-application', '--region', 'us', '--name', 'demo', '--environment', 'development'],
      { cwd: ROOT, env },
    );
    const created = JSON.parse(stdout.trim()) as { application_id: string; api_token: string; publishable_key: string };
    expect(created.application_id).toMatch(/^tp_us_/);
    expect(created.publishable_key).toMatch(/^pk_test_/);
    const me = await http('GET', `${router(1)}/api/v1/me`, { headers: { authorization: `Bearer ${created.api_token}` } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ application: { id: created.application_id } });
    expect((await http('GET', `${router(1)}/api/v1/me`)).status).toBe(401);
    const misdirected = await http('GET', `${router(1)}/api/v1/applications/tp_eu_abcdefghijklmnopqrst`, {
      headers: { authorization: `Bearer ${created.api_token}` },
    });
    expect(misdirected.status).toBe(421);
    expect(misdirected.body).toMatchObject({ reason_code: 'wrong_region', detail: { home_region: 'eu' } });
    const posted = await http('POST', `${router(1)}/api/v1/applications/${created.application_id}/allowed_origins`, {
      headers: { authorization: `Bearer ${created.api_token}` },
      json: { allowed_origin: { origin: 'http://localhost:5173' } },
    });
    expect(posted.status).toBe(201);
  });

  it('accepts a consent import over 1 MiB through the us router and still refuses other large bodies', async () => {
    const { stdout } = await run(
      process.execPath,
      [RUN_COMPILED, ADMIN_CLI, 'create-application', '--region', 'us', '--name', 'importer', '--environment', 'development'],
      { cwd: ROOT, env },
    );
    const headers = { authorization: `Bearer ${(JSON.parse(stdout.trim()) as { api_token: string }).api_token}` };
    const flow = await http<{ id: string }>('POST', `${router(1)}/api/v1/flows`, {
      headers,
      json: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [{ key: 'newsletter', label: 'Newsletter' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    expect((await http('POST', `${router(1)}/api/v1/flows/${flow.body.id}/activate`, { headers })).status).toBe(200);
    const records = Array.from({ length: 6_000 }, (_, i) => ({
      subject: { email: `person-${i}@example.com`, external_id: `ext-${i}` },
      decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
      captured_at: '2026-01-02T03:04:05Z',
      idempotency_key: `import-row-${i}`,
    }));
    const json = { flow_id: flow.body.id, dry_run: true, records };
    expect(Buffer.byteLength(JSON.stringify(json))).toBeGreaterThan(1_048_576);
    const imported = await http('POST', `${router(1)}/api/v1/consent_records/imports`, { headers, json });
    expect(imported.status).toBe(200);
    const tooLarge = await http('POST', `${router(1)}/api/v1/flows`, { headers, json: { name: 'x'.repeat(1_100_000) } });
    expect([tooLarge.status, (tooLarge.body as { reason_code?: string }).reason_code]).toEqual([413, 'payload_too_large']);
  });

  it('rotates the region key with the admin CLI', async () => {
    const { stdout } = await run(process.execPath, [RUN_COMPILED, ADMIN_CLI, 'rotate-keys', '--region', 'eu'], {
      cwd: ROOT,
      env,
    });
    expect(JSON.parse(stdout.trim())).toEqual({ region: 'eu', active_kid: 'oap-eu-v2', previous_kid: 'oap-eu-v1' });
  });

  it('refuses bad CLI usage with exit code 2 and the usage text', async () => {
    await expect(
      run(process.execPath, [RUN_COMPILED, ADMIN_CLI, 'create-application', '--region', 'mars'], { cwd: ROOT, env }),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--region must be us, eu or ap'),
    });
  });

  it('runs MailDev, prints its inbox, and a sign-up code sent through the us router lands there', async () => {
    const inbox = /Mail inbox \(MailDev\): (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    expect(inbox).toBeDefined();
    const email = `newcomer.${tag}@example.test`;
    const started = await http('POST', `${router(1)}/people/email_codes`, {
      json: { purpose: 'sign_up', email, display_name: 'Newcomer', home_country: 'US' },
    });
    expect(started.status).toBe(202);
    const mails = await waitFor(async () => {
      const all = (await (await fetch(`${inbox!}/email`)).json()) as Array<{ subject: string; to: Array<{ address: string }> }>;
      const mine = all.filter((m) => m.to.some((to) => to.address === email));
      return mine.length ? mine : undefined;
    });
    expect(mails[0]!.subject).toMatch(/\b\d{6}\b/);
  });

  // The README's quick start, run as a newcomer runs it against the stack `npm start` brought up:
  // scripts/quickstart.sh (the README's block, see test/quickstart/readme-block.spec.ts) creates an
  // application, a flow, a consent session, a webhook receiver, verifies the receipt offline and
  // gets an agent's first grant with DPoP. The test plays the person in the browser: it makes the
  // moves the hosted page makes (POST …/transitions with the session token alone). Once, on the
  // mode the README's first command starts.
  if (mode === 'monolithic') {
    it('runs every step of the README quick start within a minute', async () => {
      const startedAt = Date.now();
      const eu = router(2);
      const script = spawn('bash', [join(ROOT, 'scripts', 'quickstart.sh')], {
        cwd: ROOT,
        env: { ...env, BASE: eu, HOOK_PORT: String(await freePort()) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = outputOf(script);
      const exited = new Promise<number | null>((resolve) => script.once('exit', resolve));
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
    }, 120_000);
  }

  it(`keeps the whole stack within ${CONNECTION_LIMIT[mode]} Postgres connections at its peak (pg_stat_activity by application_name)`, async () => {
    // A burst of concurrent authenticated requests on top of the imports and CLI runs above.
    const { stdout } = await run(
      process.execPath,
      [RUN_COMPILED, ADMIN_CLI, 'create-application', '--region', 'us', '--name', 'burst', '--environment', 'development'],
      { cwd: ROOT, env },
    );
    const headers = { authorization: `Bearer ${(JSON.parse(stdout.trim()) as { api_token: string }).api_token}` };
    await Promise.all(Array.from({ length: 60 }, () => http('GET', `${router(1)}/api/v1/me`, { headers })));
    await sampler.sample();
    console.log(
      `connection budget (${mode}): peak ${sampler.peak} of ${CONNECTION_LIMIT[mode]} ${JSON.stringify(sampler.peakByApplication)}`,
    );
    expect(sampler.peak).toBeGreaterThan(0);
    expect(sampler.peak).toBeLessThanOrEqual(CONNECTION_LIMIT[mode]);
    expect(output).toContain(`Postgres connections: at most ${CONNECTION_LIMIT[mode]}`);
  }, 120_000);

  it('stops every process cleanly on Ctrl-C', async () => {
    const exited = new Promise<number | null>((resolve) => stack.once('exit', (code) => resolve(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('Stopped.');
    await expect(http('GET', `${router(1)}/healthz`)).rejects.toThrow();
    const inbox = /Mail inbox \(MailDev\): (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    await expect(fetch(`${inbox!}/healthz`)).rejects.toThrow();
  }, 60_000);
});

describe('a service with a bad configuration', () => {
  it('stops at boot with a message naming the variable', async () => {
    const env = { PATH: process.env.PATH, REGION: 'mars', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };
    await expect(
      run(process.execPath, [RUN_COMPILED, join(ROOT, 'apps', 'decision-gateway', 'src', 'main.ts')], { cwd: ROOT, env }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/Invalid configuration: .*REGION.*KEY_ENCRYPTION_KEY|Invalid configuration: .*REGION/),
    });
  });

  it('stops at boot when Postgres cannot be reached instead of starting anyway', async () => {
    const env = {
      PATH: process.env.PATH,
      REGION: 'us',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      HTTP_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    await expect(
      run(process.execPath, [RUN_COMPILED, join(ROOT, 'apps', 'decision-gateway', 'src', 'main.ts')], { cwd: ROOT, env, timeout: 60_000 }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Startup failed'),
    });
  });
});
