import { keysMigrations } from '@svc/key-store';
import { idempotencyMigrations, outboxTraceContextMigrations, runMigrations, type SchemaMigrations } from '@svc/persistence';
import type { DataSource } from 'typeorm';

/**
 * Every migration set a process applies at boot, in order: the platform's own schemas (signing
 * keys, idempotency), the features' schemas, then the outbox trace-context columns of each schema.
 * The migration Job and the test database template apply exactly this list too.
 */
export function processMigrationSets(featureSets: readonly SchemaMigrations[]): SchemaMigrations[] {
  const sets = [keysMigrations, idempotencyMigrations, ...featureSets];
  const schemas = [...new Set(sets.map((set) => set.schema))];
  return [...sets, ...schemas.map((schema) => outboxTraceContextMigrations(schema))];
}

/** Applies the pending migrations of {@link processMigrationSets}; returns the names applied, by schema. */
export async function migrateDatabase(dataSource: DataSource, featureSets: readonly SchemaMigrations[]): Promise<Record<string, string[]>> {
  const applied: Record<string, string[]> = {};
  for (const set of processMigrationSets(featureSets)) {
    const names = await runMigrations(dataSource, set);
    applied[set.schema] = [...(applied[set.schema] ?? []), ...names];
  }
  return applied;
}
