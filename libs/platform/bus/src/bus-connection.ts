import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';

export interface BusOptions {
  /** nats:// URL(s), comma separated. */
  url: string;
  /** Subject and stream prefix; tests use their own so files run in parallel. */
  prefix: string;
  region: string;
  /** Connection name shown by the NATS server's monitoring. */
  name: string;
}

/** One NATS connection per process, with its JetStream client and manager. */
export class BusConnection {
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
      timeout: 5_000,
    });
    const jsm = await nc.jetstreamManager({ timeout: 5_000 });
    return new BusConnection(nc, nc.jetstream({ timeout: 10_000 }), jsm, options);
  }

  get prefix(): string {
    return this.options.prefix;
  }

  get region(): string {
    return this.options.region;
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
