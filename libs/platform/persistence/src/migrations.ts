import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';

export type MigrationClass = new () => MigrationInterface;

/** A service's schema and its ordered, checked-in migrations. */
export interface SchemaMigrations {
  schema: string;
  migrations: readonly MigrationClass[];
}

function assertIdentifier(name: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`"${name}" is not a safe SQL identifier`);
}

/**
 * Applies the pending migrations of one schema, each in its own transaction, under a Postgres
 * advisory lock so concurrent starters (several services, several replicas) apply each once.
 * Returns the names applied now.
 */
export async function runMigrations(dataSource: DataSource, set: SchemaMigrations): Promise<string[]> {
  assertIdentifier(set.schema);
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  const applied: string[] = [];
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrations:${set.schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${set.schema}"`);
    await runner.query(
      `CREATE TABLE IF NOT EXISTS "${set.schema}".schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const rows: Array<{ name: string }> = await runner.query(`SELECT name FROM "${set.schema}".schema_migrations`);
    const done = new Set(rows.map((row) => row.name));
    for (const Migration of set.migrations) {
      const migration = new Migration();
      const name = migration.name ?? Migration.name;
      if (done.has(name)) continue;
      await runner.startTransaction();
      try {
        await migration.up(runner);
        await runner.query(`INSERT INTO "${set.schema}".schema_migrations (name) VALUES ($1)`, [name]);
        await runner.commitTransaction();
      } catch (error) {
        await runner.rollbackTransaction();
        throw new Error(`Migration ${name} of schema ${set.schema} failed: ${(error as Error).message}`);
      }
      applied.push(name);
    }
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${set.schema}`]).catch(() => undefined);
    await runner.release();
  }
  return applied;
}

/**
 * DDL of a service's transactional outbox and consumer inbox, for its first migration.
 * The outbox `seq` orders publication; `id` is the event id and the JetStream Nats-Msg-Id;
 * `trace_parent`/`trace_state` hold the W3C trace context of the request that wrote the row.
 */
export async function createOutboxAndInbox(runner: QueryRunner, schema: string): Promise<void> {
  assertIdentifier(schema);
  await runner.query(`
    CREATE TABLE "${schema}".outbox (
      seq bigserial PRIMARY KEY,
      id uuid NOT NULL,
      event_type text NOT NULL,
      payload bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz,
      trace_parent text,
      trace_state text,
      CONSTRAINT "${schema}_outbox_id_unique" UNIQUE (id)
    )`);
  await runner.query(`CREATE INDEX "${schema}_outbox_unpublished_idx" ON "${schema}".outbox (seq) WHERE published_at IS NULL`);
  await runner.query(`
    CREATE TABLE "${schema}".inbox (
      consumer text NOT NULL,
      message_id text NOT NULL,
      processed_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT "${schema}_inbox_pk" PRIMARY KEY (consumer, message_id)
    )`);
}

export async function dropOutboxAndInbox(runner: QueryRunner, schema: string): Promise<void> {
  assertIdentifier(schema);
  await runner.query(`DROP TABLE IF EXISTS "${schema}".inbox`);
  await runner.query(`DROP TABLE IF EXISTS "${schema}".outbox`);
}

/**
 * Brings an outbox created before trace context was stored up to date (the columns
 * {@link createOutboxAndInbox} now creates). Applied by the platform to every schema after the
 * schema's own migrations; a schema without an outbox is left alone.
 */
export function outboxTraceContextMigrations(schema: string): SchemaMigrations {
  assertIdentifier(schema);
  class OutboxTraceContext1797800000000 implements MigrationInterface {
    name = 'OutboxTraceContext1797800000000';

    async up(runner: QueryRunner): Promise<void> {
      await runner.query(
        `ALTER TABLE IF EXISTS "${schema}".outbox ADD COLUMN IF NOT EXISTS trace_parent text, ADD COLUMN IF NOT EXISTS trace_state text`,
      );
    }

    async down(runner: QueryRunner): Promise<void> {
      await runner.query(`ALTER TABLE IF EXISTS "${schema}".outbox DROP COLUMN IF EXISTS trace_parent, DROP COLUMN IF EXISTS trace_state`);
    }
  }
  return { schema, migrations: [OutboxTraceContext1797800000000] };
}
