import { Client } from 'pg';
import { outboxChannel } from './outbox';

/**
 * One LISTEN connection per process for the outbox relays of every schema it runs. A commit's
 * `pg_notify` on a schema's channel wakes that schema's relay at once, also when another process
 * (a second instance, the admin CLI) wrote the rows; without a notification a relay still finds
 * them on its idle poll. One connection rather than one per schema keeps a monolithic region
 * process at its pool plus one connection to Postgres.
 */
export class OutboxNotifications {
  private client?: Client;
  /** The pending attempt to connect again after the connection was lost. */
  private reconnecting?: NodeJS.Timeout;
  private connecting?: Promise<Client>;
  private readonly wakers = new Map<string, Set<() => void>>();
  /** LISTEN/UNLISTEN statements run one after another: a pg client takes one query at a time. */
  private statements: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly databaseUrl: string,
    private readonly applicationName = 'outbox-listener',
  ) {}

  /** Calls `wake` on every notification of `schema`'s outbox; the returned function stops it. */
  async listen(schema: string, wake: () => void): Promise<() => Promise<void>> {
    const channel = outboxChannel(schema);
    const client = await this.connection();
    let wakers = this.wakers.get(channel);
    if (!wakers) {
      wakers = new Set();
      this.wakers.set(channel, wakers);
      await this.serially(() => client.query(`LISTEN "${channel}"`));
    }
    wakers.add(wake);
    return async () => {
      wakers.delete(wake);
      if (wakers.size > 0 || this.wakers.get(channel) !== wakers) return;
      this.wakers.delete(channel);
      if (this.wakers.size === 0) await this.close();
      else await this.serially(() => client.query(`UNLISTEN "${channel}"`)).catch(() => undefined);
    };
  }

  /**
   * True while `schema`'s channel is listened to on a live connection: a commit's notification
   * will wake its relay, so a writer in this process need not wake it as well.
   */
  isListening(schema: string): boolean {
    return this.client !== undefined && this.wakers.has(outboxChannel(schema));
  }

  /**
   * Connects again after a lost connection (backing off up to 5 s), listens to every channel
   * again, then wakes every relay once for the rows committed while nobody listened.
   */
  private reconnect(attempt: number): void {
    if (this.reconnecting || this.wakers.size === 0) return;
    this.reconnecting = setTimeout(
      () => {
        this.reconnecting = undefined;
        if (this.wakers.size === 0) return;
        void (async () => {
          try {
            const client = await this.connection();
            for (const channel of this.wakers.keys()) await this.serially(() => client.query(`LISTEN "${channel}"`));
            for (const wakers of this.wakers.values()) for (const wake of wakers) wake();
          } catch {
            this.reconnect(attempt + 1);
          }
        })();
      },
      Math.min(5_000, 100 * 2 ** attempt),
    );
    this.reconnecting.unref();
  }

  /** Closes the connection; relays fall back to polling. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    this.wakers.clear();
    clearTimeout(this.reconnecting);
    this.reconnecting = undefined;
    await client?.end().catch(() => undefined);
  }

  private serially<T>(statement: () => Promise<T>): Promise<T> {
    const run = this.statements.then(statement, statement);
    this.statements = run.catch(() => undefined);
    return run;
  }

  private connection(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new Client({ connectionString: this.databaseUrl, application_name: this.applicationName });
      // A lost listener only costs latency: relays keep polling until it is back.
      const lost = (): void => {
        if (this.client !== client) return;
        this.client = undefined;
        this.connecting = undefined;
        this.reconnect(0);
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', (message) => {
        for (const wake of this.wakers.get(message.channel) ?? []) wake();
      });
      try {
        await client.connect();
      } catch (error) {
        this.connecting = undefined;
        throw error;
      }
      this.client = client;
      return client;
    })();
    return this.connecting;
  }
}
