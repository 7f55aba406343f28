import { dropDatabase, ensureDatabase } from '@svc/persistence';
import { randomBase32 } from '@svc/ids';

/** Server URL (no database) of the Postgres the tests use; trust auth on 127.0.0.1 by default. */
export const TEST_DATABASE_SERVER = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * Creates a database of its own for one test file (`svc_test_<label>_<random>`), so files run in
 * parallel without seeing each other's rows. Call `drop()` in afterAll.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const safe = label.toLowerCase().replace(/[^a-z0-9]/g, '_').slice(0, 30);
  const name = `svc_test_${safe}_${randomBase32(8)}`;
  const url = `${TEST_DATABASE_SERVER}/${name}`;
  await ensureDatabase(url);
  return { url, name, drop: () => dropDatabase(url) };
}
