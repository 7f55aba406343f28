import { readFileSync } from 'node:fs';
import type { PersonalDataSeal } from '@svc/contracts';
import {
  connect,
  credsAuthenticator,
  type ConnectionOptions,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
} from 'nats';

export interface BusOptions {
  /** nats:// URL(s), comma separated. */
  url: string;
  /** Subject and stream prefix; tests use their own so files run in parallel. */
  prefix: string;
  region: string;
  /** Connection name shown by the NATS server's monitoring. */
  name: string;
  /** How this process authenticates to the server; anonymous when absent. */
  credentials?: BusCredentials;
  /** The region's bus key: seals personal fields of published events and opens them on consumption. */
  personalData?: PersonalDataSeal;
}

/** Bus credentials: a user and password, a token, or a NATS credentials file (JWT + NKey seed). */
export type BusCredentials = { user: string; password: string } | { token: string } | { credsFile: string };

/**
 * The credentials named by `NATS_USER`/`NATS_PASSWORD`, `NATS_TOKEN` or `NATS_CREDS` (a file path);
 * undefined when none is set. Throws when a user comes without a password, or when more than one
 * kind is set, rather than connect with credentials other than the operator meant.
 */
export function busCredentialsFrom(env: {
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TOKEN?: string;
  NATS_CREDS?: string;
}): BusCredentials | undefined {
  const kinds = [
    env.NATS_USER || env.NATS_PASSWORD ? 'NATS_USER/NATS_PASSWORD' : '',
    env.NATS_TOKEN ? 'NATS_TOKEN' : '',
    env.NATS_CREDS ? 'NATS_CREDS' : '',
  ].filter(Boolean);
  if (kinds.length > 1) throw new Error(`Bus credentials: set only one of ${kinds.join(', ')}`);
  if (env.NATS_USER || env.NATS_PASSWORD) {
    if (!env.NATS_USER || !env.NATS_PASSWORD) throw new Error('Bus credentials: NATS_USER and NATS_PASSWORD go together');
    return { user: env.NATS_USER, password: env.NATS_PASSWORD };
  }
  if (env.NATS_TOKEN) return { token: env.NATS_TOKEN };
  if (env.NATS_CREDS) return { credsFile: env.NATS_CREDS };
  return undefined;
}

function authOptions(credentials: BusCredentials | undefined): Partial<ConnectionOptions> {
  if (!credentials) return {};
  if ('token' in credentials) return { token: credentials.token };
  if ('credsFile' in credentials) return { authenticator: credsAuthenticator(readFileSync(credentials.credsFile)) };
  return { user: credentials.user, pass: credentials.password };
}

/** One NATS connection per process, with its JetStream client and manager. */
export class BusConnection {
  /** Durable consumers this process opened on the region stream (their lag is on /metrics). */
  readonly durables = new Set<string>();

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    readonly options: BusOptions,
  ) {}

  /** Connects, failing fast when the server cannot be reached (a service must not start without its bus). */
  static async connect(options: BusOptions): Promise<BusConnection> {
    const nc = await connect({
      servers: options.url.split(','),
      name: options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      // A server that refuses the connection fails the start at once; this bounds only the wait
      // for a server that accepted it (NATS's own default): a busy server is not a missing one.
      timeout: 20_000,
      // No stack captured for every request (each JetStream publish and acknowledgement is one):
      // a measurable share of a busy process's CPU; a timed-out request still says which.
      noAsyncTraces: true,
      ...authOptions(options.credentials),
    });
    const jsm = await nc.jetstreamManager({ timeout: 10_000 });
    return new BusConnection(nc, nc.jetstream({ timeout: 10_000 }), jsm, options);
  }

  get prefix(): string {
    return this.options.prefix;
  }

  get region(): string {
    return this.options.region;
  }

  /** The region's bus key for personal fields; undefined in a process configured without one. */
  get personalData(): PersonalDataSeal | undefined {
    return this.options.personalData;
  }

  /** True when the server answers a round trip now. */
  async isReachable(timeoutMs = 2_000): Promise<boolean> {
    if (this.nc.isClosed()) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.nc.flush(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
        }),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      // A pending timer would hold the process (and a test worker) open for up to timeoutMs after shutdown.
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    await this.nc.drain().catch(() => this.nc.close());
  }
}
