import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { FAULT_POINTS_VARIABLE, type Region } from '@svc/config';
import {
  TEST_NATS_URL,
  TcpProxy,
  createTestDatabaseFrom,
  deleteTestStreams,
  freePort,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  type TestDatabase,
} from '@svc/testing';
import { regionTemplate } from './regions';

const ROOT = join(__dirname, '..', '..', '..');
/** Compiled once into a cache and loaded from it after: a child starts without a compiler. */
const RUN_COMPILED = join(ROOT, 'scripts', 'run-compiled.js');
const CHILD_ENTRY = join(__dirname, 'fault-child.ts');
/** Boots that fail in a row before the harness gives up restarting (a region that cannot boot). */
const MAX_FAILED_BOOTS = 3;

/** How one region process ended. */
export interface Death {
  /** What was armed in the process (`SVC_FAULT_POINTS`), if anything. */
  arming?: string;
  /** The fault point the process killed itself at, if it did. */
  faultPoint?: string;
  /** True when the harness sent the SIGKILL (a kill at a random time). */
  killedByHarness: boolean;
  /** The process had finished booting when it died. */
  booted: boolean;
  signal: NodeJS.Signals | null;
  code: number | null;
  /** Milliseconds since the harness started. */
  at: number;
  /** When the harness saw the death (epoch milliseconds). */
  time: number;
}

interface Incarnation {
  child: ChildProcess;
  arming?: string;
  loaded: Promise<void>;
  exited: Promise<void>;
  stderr: string;
  ready: boolean;
  killedByHarness: boolean;
}

export interface FaultHarnessOptions {
  region?: Region;
  /** Further variables of the region process. */
  env?: Record<string, string>;
  /** The fault points armed in each new process (`SVC_FAULT_POINTS`); none by default. */
  arming?: (incarnation: number) => string | undefined;
}

/**
 * One region, in monolithic mode, run as a child process the test owns, on a database and a bus
 * prefix of its own, with its Postgres and NATS connections through TCP proxies the test controls
 * (the shared servers are never stopped). The test can SIGKILL the process at any moment, or let
 * it kill itself at an armed fault point; the harness then starts the replacement at once, on the
 * same database and streams, from a standby process that has already loaded the code. Everything
 * (processes, proxies, database, streams) is removed by {@link close}, also after a failed boot.
 */
export class FaultHarness {
  /** Every death of a region process, in order. */
  readonly deaths: Death[] = [];
  /** Milliseconds from each death to the replacement listening. */
  readonly restartMs: number[] = [];
  private current?: Incarnation;
  private standby?: Incarnation;
  private incarnations = 0;
  private failedBoots = 0;
  private closing = false;
  private readonly t0 = Date.now();
  private readyWaiters: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  private deathWaiters: Array<(death: Death) => void> = [];
  private failure?: Error;
  /** The proxies cut at the moment. */
  private readonly cutProxies = new Set<TcpProxy>();

  private constructor(
    readonly region: Region,
    /** The region's HTTP base URL. */
    readonly url: string,
    /** The region's database, directly (not through the proxy): what the test asserts on. */
    readonly database: TestDatabase,
    readonly prefix: string,
    readonly databaseProxy: TcpProxy,
    readonly busProxy: TcpProxy,
    private readonly env: Record<string, string>,
    private arming: (incarnation: number) => string | undefined,
  ) {}

  /** Called at each death of the running process, before its replacement boots. */
  onDeath?: (death: Death) => void;

  /** Makes the database, proxies and prefix, and boots the first process; cleans up everything when that fails. */
  static async start(label: string, options: FaultHarnessOptions = {}): Promise<FaultHarness> {
    const region = options.region ?? 'us';
    const prefix = uniqueBusPrefix();
    let database: TestDatabase | undefined;
    let databaseProxy: TcpProxy | undefined;
    let busProxy: TcpProxy | undefined;
    let harness: FaultHarness | undefined;
    try {
      database = await createTestDatabaseFrom(label, regionTemplate);
      const direct = new URL(database.url);
      databaseProxy = await TcpProxy.start(`${direct.hostname}:${direct.port || '5432'}`);
      busProxy = await TcpProxy.start(TEST_NATS_URL);
      const proxied = new URL(database.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(databaseProxy.port);
      const port = await freePort();
      const others = (['us', 'eu', 'ap'] as const).filter((r) => r !== region);
      const otherPorts = await Promise.all(others.map(() => freePort()));
      const env: Record<string, string> = {
        NODE_ENV: 'test',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
        REGION: region,
        DATABASE_URL: proxied.toString(),
        NATS_URL: busProxy.url('nats'),
        BUS_PREFIX: prefix,
        HTTP_PORT: String(port),
        KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
        REGION_URLS: [`${region}=http://127.0.0.1:${port}`, ...others.map((r, i) => `${r}=http://127.0.0.1:${otherPorts[i]}`)].join(','),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ...options.env,
      };
      harness = new FaultHarness(
        region,
        `http://127.0.0.1:${port}`,
        database,
        prefix,
        databaseProxy,
        busProxy,
        env,
        options.arming ?? (() => undefined),
      );
      harness.standby = harness.spawn();
      await harness.promote();
      await harness.waitReady();
      return harness;
    } catch (error) {
      if (harness) await harness.close().catch(() => undefined);
      else {
        await busProxy?.close().catch(() => undefined);
        await databaseProxy?.close().catch(() => undefined);
        await database?.drop().catch(() => undefined);
        await deleteTestStreams(prefix).catch(() => undefined);
      }
      throw error;
    }
  }

  /** Milliseconds since the harness started. */
  elapsed(): number {
    return Date.now() - this.t0;
  }

  /** Deaths by SIGKILL (the harness's, or the process's own at a fault point); not boots that failed. */
  get kills(): number {
    return this.deaths.filter((death) => death.signal === 'SIGKILL').length;
  }

  /** True while a process is up and has finished booting. */
  get ready(): boolean {
    return this.current?.ready === true;
  }

  /** What is armed in the running process. */
  get currentArming(): string | undefined {
    return this.current?.arming;
  }

  /** Resolves once a process is up and listening (at once when one is). */
  waitReady(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  /** Resolves at the next death of the running process. */
  nextDeath(): Promise<Death> {
    return new Promise((resolve) => this.deathWaiters.push(resolve));
  }

  /** SIGKILLs the running process (the harness starts its replacement at once); resolves at its death. */
  async kill(): Promise<Death> {
    const current = this.current;
    if (!current) throw new Error('no region process is running');
    const death = this.nextDeath();
    current.killedByHarness = true;
    current.child.kill('SIGKILL');
    return death;
  }

  /** Kills the running process and waits for its replacement. */
  async restart(): Promise<Death> {
    const death = await this.kill();
    await this.waitReady();
    return death;
  }

  /**
   * From now on every process is armed with nothing: the standby is replaced by one that is not,
   * and an armed running process is killed and replaced by it. Resolves once one is listening.
   */
  async disarm(): Promise<void> {
    this.arming = () => undefined;
    const standby = this.standby;
    if (standby?.arming) {
      this.standby = this.spawn();
      standby.child.kill('SIGKILL');
    }
    await this.waitReady();
    if (this.current?.arming) await this.restart();
  }

  /** Drops the region's Postgres connections and refuses new ones until {@link restoreDatabase}. */
  cutDatabase(): void {
    this.cut(this.databaseProxy);
  }

  restoreDatabase(): void {
    this.restore(this.databaseProxy);
  }

  /** Drops the region's NATS connection and refuses new ones until {@link restoreBus}. */
  cutBus(): void {
    this.cut(this.busProxy);
  }

  restoreBus(): void {
    this.restore(this.busProxy);
  }

  private cut(proxy: TcpProxy): void {
    this.cutProxies.add(proxy);
    proxy.cut();
  }

  private restore(proxy: TcpProxy): void {
    this.cutProxies.delete(proxy);
    proxy.restore();
  }

  /** Stops every process it started, then removes the proxies, the database and the streams. */
  async close(): Promise<void> {
    this.closing = true;
    const errors: unknown[] = [];
    for (const incarnation of [this.current, this.standby]) {
      if (!incarnation) continue;
      incarnation.child.kill('SIGKILL');
      await incarnation.exited;
    }
    for (const step of [
      () => this.busProxy.close(),
      () => this.databaseProxy.close(),
      () => this.database.drop(),
      () => deleteTestStreams(this.prefix),
    ]) {
      await step().catch((error: unknown) => errors.push(error));
    }
    if (errors.length > 0) throw new AggregateError(errors, 'fault harness teardown failed');
  }

  /** A loaded process waiting for `start`, with the arming of its incarnation. */
  private spawn(): Incarnation {
    this.incarnations += 1;
    const arming = this.arming(this.incarnations);
    const child = fork(RUN_COMPILED, [CHILD_ENTRY], {
      cwd: ROOT,
      execArgv: [],
      env: { ...process.env, ...this.env, [FAULT_POINTS_VARIABLE]: arming ?? '' },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const incarnation: Incarnation = {
      child,
      arming,
      loaded: new Promise((resolve, reject) => {
        child.on('message', (message: { loaded?: boolean; ready?: boolean }) => {
          if (message.loaded) resolve();
          if (message.ready) this.onReady(incarnation);
        });
        child.once('exit', () => reject(new Error(`region process exited before loading: ${incarnation.stderr.slice(-2000)}`)));
      }),
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
      stderr: '',
      ready: false,
      killedByHarness: false,
    };
    incarnation.loaded.catch(() => undefined);
    child.stderr?.on('data', (chunk: Buffer) => {
      incarnation.stderr = (incarnation.stderr + chunk.toString()).slice(-8_000);
    });
    child.once('exit', (code, signal) => this.onExit(incarnation, code, signal));
    return incarnation;
  }

  /** Makes the standby the running process, and loads the next standby. */
  private async promote(): Promise<void> {
    const next = this.standby!;
    this.standby = this.spawn();
    this.current = next;
    await next.loaded;
    next.child.send({ start: true });
  }

  private onReady(incarnation: Incarnation): void {
    if (incarnation !== this.current) return;
    incarnation.ready = true;
    this.failedBoots = 0;
    const death = this.deaths.at(-1);
    if (death) this.restartMs.push(this.elapsed() - death.at);
    for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
  }

  private onExit(incarnation: Incarnation, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.closing || incarnation !== this.current) return;
    const faultPoint = /fault point (\S+) reached: SIGKILL/.exec(incarnation.stderr)?.[1];
    const death: Death = {
      arming: incarnation.arming,
      faultPoint,
      killedByHarness: incarnation.killedByHarness,
      booted: incarnation.ready,
      signal,
      code,
      at: this.elapsed(),
      time: Date.now(),
    };
    this.deaths.push(death);
    this.onDeath?.(death);
    for (const waiter of this.deathWaiters.splice(0)) waiter(death);
    // A boot that fails while a proxy is cut is expected (the server is unreachable); only boots
    // failing with both connections open count towards giving up.
    if (!incarnation.ready && signal !== 'SIGKILL' && this.cutProxies.size === 0) {
      this.failedBoots += 1;
      if (this.failedBoots >= MAX_FAILED_BOOTS) {
        this.failure = new Error(`the region failed to boot ${MAX_FAILED_BOOTS} times in a row: ${incarnation.stderr.slice(-2000)}`);
        for (const waiter of this.readyWaiters.splice(0)) waiter.reject(this.failure);
        return;
      }
    }
    this.promote().catch((error: unknown) => {
      this.failure = error instanceof Error ? error : new Error(String(error));
      for (const waiter of this.readyWaiters.splice(0)) waiter.reject(this.failure);
    });
  }
}
