import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@svc/testing';
import { migrateRegion, regionMigrationSets } from './migrate-region';

describe('migrateRegion (the chart’s migration Job)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('migrate_region');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('creates every schema the apps use, then finds nothing pending on a second run', async () => {
    const first = await migrateRegion(database.url);
    const schemas = [...new Set(regionMigrationSets().map((set) => set.schema))].sort();
    expect(Object.keys(first).sort()).toEqual(schemas);
    for (const schema of schemas) expect(first[schema]!.length).toBeGreaterThan(0);

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const rows = await client.query<{ schema_name: string }>('SELECT schema_name FROM information_schema.schemata');
      expect(rows.rows.map((row) => row.schema_name)).toEqual(expect.arrayContaining(schemas));
    } finally {
      await client.end();
    }

    const second = await migrateRegion(database.url);
    expect(Object.values(second).flat()).toEqual([]);
  });
});
