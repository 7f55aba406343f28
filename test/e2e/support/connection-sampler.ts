import { TEST_DATABASE_SERVER } from '@svc/testing';
import { Client } from 'pg';

/**
 * Samples pg_stat_activity every 200 ms for the connections to the databases whose names start
 * with a prefix, keeping the peak of the total and the count by application_name at that peak (one
 * connection of its own, to the `postgres` database, so it never counts itself).
 */
export class ConnectionSampler {
  peak = 0;
  peakByApplication: Record<string, number> = {};
  private readonly client = new Client({
    connectionString: `${TEST_DATABASE_SERVER}/postgres`,
    application_name: 'test-connection-sampler',
  });
  private timer?: NodeJS.Timeout;
  private busy?: Promise<void>;

  constructor(private readonly databasePrefix: string) {}

  async start(): Promise<void> {
    await this.client.connect();
    this.timer = setInterval(() => void this.sample().catch(() => undefined), 200);
  }

  /** Takes one sample now (none while one is under way). */
  async sample(): Promise<void> {
    if (this.busy) return this.busy;
    this.busy = this.query().finally(() => (this.busy = undefined));
    return this.busy;
  }

  private async query(): Promise<void> {
    const { rows } = await this.client.query<{ application_name: string; n: string }>(
      `SELECT application_name, count(*) AS n FROM pg_stat_activity WHERE datname LIKE $1 GROUP BY application_name`,
      [`${this.databasePrefix}%`],
    );
    const total = rows.reduce((sum, row) => sum + Number(row.n), 0);
    if (total > this.peak) {
      this.peak = total;
      this.peakByApplication = Object.fromEntries(rows.map((row) => [row.application_name, Number(row.n)]));
    }
  }

  /** Stops sampling once the sample under way (if any) is in; the peak stays readable. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.busy?.catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}
