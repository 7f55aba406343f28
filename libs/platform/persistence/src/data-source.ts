import { Client } from 'pg';
import { DataSource, type MixedList, type EntitySchema } from 'typeorm';
import { IdempotencyRecoveryPoint } from './idempotency/claim-context';

export interface DataSourceOptions {
  url: string;
  poolSize: number;
  /** Shown in pg_stat_activity. */
  applicationName: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities?: MixedList<Function | string | EntitySchema>;
}

/**
 * A TypeORM data source for one region database. Never synchronizes: schemas come from migrations.
 * Every transaction committed through it passes the `Idempotency-Key` recovery point
 * ({@link IdempotencyRecoveryPoint}), which marks the claim of the request running it applied.
 */
export function createDataSource(options: DataSourceOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    entities: options.entities ?? [],
    subscribers: [IdempotencyRecoveryPoint],
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: options.poolSize, application_name: options.applicationName, connectionTimeoutMillis: 5_000 },
  });
}

function adminUrl(url: string): { admin: string; database: string } {
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`Database name "${database}" must be lowercase letters, digits or _`);
  parsed.pathname = '/postgres';
  return { admin: parsed.toString(), database };
}

/** Creates the database named by `url` when it does not exist. Safe to race. */
export async function ensureDatabase(url: string): Promise<void> {
  const { admin, database } = adminUrl(url);
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${database}"`);
      } catch (error) {
        // 42P04 duplicate_database, 23505 unique_violation: another process created it first.
        const code = (error as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

/** Drops the database named by `url`, disconnecting its sessions; for test teardown. */
export async function dropDatabase(url: string): Promise<void> {
  const { admin, database } = adminUrl(url);
  const client = new Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * Rows of a query, whatever its command. TypeORM's Postgres driver answers UPDATE and DELETE with
 * `[rows, affectedCount]` but SELECT and INSERT with the rows alone; this evens that out.
 */
export async function queryRows<T>(
  runner: { query(sql: string, parameters?: unknown[]): Promise<unknown> },
  sql: string,
  parameters: unknown[] = [],
): Promise<T[]> {
  const result = await runner.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}
