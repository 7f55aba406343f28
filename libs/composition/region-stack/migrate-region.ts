import { createHash } from 'node:crypto';
import { createDataSource, type SchemaMigrations } from '@svc/persistence';
import { migrateDatabase, processMigrationSets } from '@svc/server';
import { ALL_FEATURES } from './features';

/** Every migration set a region's processes apply at boot, in the same order. */
export function regionMigrationSets(): SchemaMigrations[] {
  return processMigrationSets(ALL_FEATURES.flatMap((feature) => feature.migrations));
}

/** Applies the pending migrations of a region's database; returns the names applied, by schema. */
export async function migrateRegion(databaseUrl: string): Promise<Record<string, string[]>> {
  const dataSource = createDataSource({ url: databaseUrl, poolSize: 1, applicationName: 'svc-migrate' });
  await dataSource.initialize();
  try {
    return await migrateDatabase(
      dataSource,
      ALL_FEATURES.flatMap((feature) => feature.migrations),
    );
  } finally {
    await dataSource.destroy();
  }
}

/** A digest of every schema and migration name of a region: equal digests, equal schemas. */
export function regionMigrationFingerprint(): string {
  const hash = createHash('sha256');
  for (const set of regionMigrationSets()) {
    hash.update(`${set.schema}\n`);
    for (const Migration of set.migrations) hash.update(`${new Migration().name ?? Migration.name}\n`);
  }
  return hash.digest('hex');
}
