import { Client } from 'pg';
import { randomBase32 } from '@svc/ids';

/** Server URL (no database) of the Postgres the tests use; trust auth on 127.0.0.1 by default. */
export const TEST_DATABASE_SERVER = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

// Talks to Postgres with pg directly (not through @svc/persistence) so that the persistence
// library's own tests can use this fixture without a dependency cycle.
async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database of its own for one test file (`svc_test_<label>_<random>`), so files run in
 * parallel without seeing each other's rows. Call `drop()` in afterAll.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const safe = label.toLowerCase().replace(/[^a-z0-9]/g, '_').slice(0, 30);
  const name = `svc_test_${safe}_${randomBase32(8)}`;
  await onServer(`CREATE DATABASE "${name}"`);
  return { url: `${TEST_DATABASE_SERVER}/${name}`, name, drop: () => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}
