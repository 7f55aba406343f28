import { keysMigrations } from '@svc/key-store';
import { createDataSource, outboxTraceContextMigrations, runMigrations, type SchemaMigrations } from '@svc/persistence';
import { ALL_FEATURES } from '@svc/region-stack';

/** Every migration set an app of the region applies at boot, in the same order. */
export function regionMigrationSets(): SchemaMigrations[] {
  const sets = [keysMigrations, ...ALL_FEATURES.flatMap((feature) => feature.migrations)];
  const schemas = [...new Set(sets.map((set) => set.schema))];
  return [...sets, ...schemas.map((schema) => outboxTraceContextMigrations(schema))];
}

/** Applies the pending migrations of a region's database; returns the names applied, by schema. */
export async function migrateRegion(databaseUrl: string): Promise<Record<string, string[]>> {
  const dataSource = createDataSource({ url: databaseUrl, poolSize: 1, applicationName: 'svc-migrate' });
  await dataSource.initialize();
  const applied: Record<string, string[]> = {};
  try {
    for (const set of regionMigrationSets()) {
      const names = await runMigrations(dataSource, set);
      applied[set.schema] = [...(applied[set.schema] ?? []), ...names];
    }
  } finally {
    await dataSource.destroy();
  }
  return applied;
}
