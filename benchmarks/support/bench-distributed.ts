import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBase32 } from '@svc/ids';
import { dropDatabase } from '@svc/persistence';
import { TEST_DATABASE_SERVER, TEST_NATS_URL, deleteTestStreams, testKeyEncryptionKey, uniqueBusPrefix } from '@svc/testing';
import type { ServerProcess } from './cpu';
import { BACKEND_SERVICE_NAMES } from '@svc/config';

const ROOT = join(__dirname, '..', '..');
/** The launcher and the admin CLI run from the compile cache, as `npm run start:distributed` and `npm run admin` do. */
const RUN_COMPILED = join(ROOT, 'scripts', 'run-compiled.js');
const run = promisify(execFile);
/** The launcher's services, in its order: instance n (0-based) of service i listens on service base + 100 + n × 10 + i (region us). */
const SERVICES = BACKEND_SERVICE_NAMES;
/** Fifteen processes start at once on two cores (more with more instances): that takes a while. */
const BOOT_TIMEOUT_MS = Number(process.env.BENCH_BOOT_TIMEOUT_MS ?? 420_000);
const STOP_TIMEOUT_MS = 30_000;

/** A distributed region (`npm run start:distributed`, region us) on a database and bus prefix of its own. */
export interface DistributedBenchRegion {
  /** The region router's base URL. */
  base: string;
  databaseUrl: string;
  /** The API token of an application created with the admin CLI. */
  apiToken: string;
  instances: number;
  /** The launcher's Postgres connection budget (DATABASE_CONNECTION_BUDGET), shared by every process. */
  budget: number;
  /** How long the launcher took until every process answered /readyz, s. */
  bootSeconds: number;
  /** The region's processes now (router and service instances), named by service. */
  processes(): ServerProcess[];
  /** Stops the launcher and everything it started, then drops the database and streams. */
  close(): Promise<void>;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port base whose router (+1) and service ports (+200 …) are free, below the ephemeral range. */
async function freePortBase(instances: number): Promise<number> {
  const offsets = [1, ...Array.from({ length: instances }, (_, n) => SERVICES.map((_s, i) => 200 + n * 10 + i)).flat()];
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = 10_000 + Math.floor(Math.random() * 22_000);
    if ((await Promise.all(offsets.map((offset) => canBind(base + offset)))).every(Boolean)) return base;
  }
  throw new Error('no free block of ports below the ephemeral range');
}

/** Every descendant of `root` with its command line (from /proc). */
function descendants(root: number): Array<{ pid: number; cmdline: string }> {
  const parent = new Map<number, number>();
  const cmdlines = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmdlines.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // Gone meanwhile.
    }
  }
  const found: Array<{ pid: number; cmdline: string }> = [];
  const walk = (pid: number) => {
    for (const [child, ppid] of parent) {
      if (ppid !== pid) continue;
      found.push({ pid: child, cmdline: cmdlines.get(child) ?? '' });
      walk(child);
    }
  };
  walk(root);
  return found;
}

/**
 * Starts region us in distributed mode with the local stack's launcher: `instances` processes of
 * every service (the launcher runs every service the same number of times) behind the region's
 * router, on a database, bus prefix, ports and state folder of their own, with the launcher's
 * connection budget `budget` (DATABASE_CONNECTION_BUDGET). The launcher runs in a process group of
 * its own: whatever happens (a failed boot, an error, this process ending), the group is stopped.
 * The processes inherit this process's CPU affinity (call `pinning()` first to pin them).
 */
export async function startDistributedBenchRegion(
  name: string,
  options: { instances: number; budget: number },
): Promise<DistributedBenchRegion> {
  const tag = randomBase32(6).toLowerCase();
  const databaseUrl = `${TEST_DATABASE_SERVER}/svc_test_bench_${name}_${tag}_us`;
  const prefix = uniqueBusPrefix();
  const stateDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const portBase = await freePortBase(options.instances);
  const base = `http://127.0.0.1:${portBase + 1}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_EMBEDDED: '',
    SVC_LOCAL_STATE_DIR: stateDir,
    SVC_INSTANCES: String(options.instances),
    SVC_REGIONS: 'us',
    DATABASE_URL_TEMPLATE: `${TEST_DATABASE_SERVER}/svc_test_bench_${name}_${tag}_{region}`,
    DATABASE_CONNECTION_BUDGET: String(options.budget),
    NATS_URL: TEST_NATS_URL,
    BUS_PREFIX: prefix,
    KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
    SVC_ROUTER_PORT_BASE: String(portBase),
    SVC_SERVICE_PORT_BASE: String(portBase + 100),
    SVC_READY_TIMEOUT_MS: String(BOOT_TIMEOUT_MS),
    LOG_LEVEL: 'warn',
    // No sign-in codes are mailed: a mail server URL keeps the launcher from starting MailDev.
    SMTP_URL: 'smtp://127.0.0.1:9',
  };
  let output = '';
  const started = Date.now();
  const launcher: ChildProcess = spawn(process.execPath, [RUN_COMPILED, join(ROOT, 'deploy', 'local', 'start.ts'), 'distributed'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  launcher.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  launcher.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const group = launcher.pid!;
  const killGroup = () => {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  // Nothing of the stack outlives this process, however it ends.
  process.once('exit', killGroup);
  // Stopped by a signal: the region stops, its database and streams go, then this process ends.
  const onSignal = (signal: NodeJS.Signals) => {
    void close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= stop());
  const stop = async (): Promise<void> => {
    if (launcher.exitCode === null && launcher.signalCode === null) {
      const exited = new Promise((resolve) => launcher.once('exit', resolve));
      // The launcher stops its processes on SIGINT (services first), then exits.
      launcher.kill('SIGINT');
      const timer = setTimeout(killGroup, STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    // Any process of the group still there (a service that did not stop in time).
    killGroup();
    process.off('exit', killGroup);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteTestStreams(prefix).catch(() => undefined);
    rmSync(stateDir, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + BOOT_TIMEOUT_MS + 30_000;
      const timer = setInterval(() => {
        if (output.includes('Ready:')) {
          clearInterval(timer);
          resolve();
        } else if (Date.now() > deadline) {
          clearInterval(timer);
          reject(new Error(`the distributed region was not ready within ${BOOT_TIMEOUT_MS / 1000} s:\n${output}`));
        }
      }, 200);
      launcher.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`the launcher exited (${String(code)}):\n${output}`));
      });
    });
    const bootSeconds = (Date.now() - started) / 1000;
    const { stdout } = await run(
      process.execPath,
      [
        RUN_COMPILED,
        join(ROOT, 'tools', 'admin', 'cli.ts'),
        'create-application',
        '--region',
        'us',
        '--name',
        'bench',
        '--environment',
        'development',
      ],
      { cwd: ROOT, env },
    );
    const created = JSON.parse(stdout.trim()) as { api_token: string };
    const servicePattern = new RegExp(`apps/(${[...SERVICES, 'residency-router'].join('|')})/src/main\\.ts`);
    return {
      base,
      databaseUrl,
      apiToken: created.api_token,
      instances: options.instances,
      budget: options.budget,
      bootSeconds,
      processes: () =>
        descendants(group).flatMap(({ pid, cmdline }) => {
          const service = servicePattern.exec(cmdline)?.[1];
          return service ? [{ name: service, pid }] : [];
        }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
