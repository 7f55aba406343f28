import { Client } from 'pg';
import { randomBase32 } from '@svc/ids';
import { createTestDatabaseFrom, type TestDatabase } from './databases';

async function query<T extends Record<string, unknown>>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('createTestDatabaseFrom', () => {
  const created: TestDatabase[] = [];
  let builds = 0;
  const template = {
    fingerprint: `spec${randomBase32(12).toLowerCase()}`,
    build: async (url: string) => {
      builds += 1;
      await query(url, 'CREATE TABLE seeded (n int); INSERT INTO seeded VALUES (42)');
    },
  };

  afterAll(async () => {
    for (const database of created) await database.drop();
    // The template of this spec's one-off fingerprint is not needed again.
    await query(
      created[0]!.url.replace(/\/[^/]+$/, '/postgres'),
      `DROP DATABASE IF EXISTS "svc_tpl_${template.fingerprint.slice(0, 24)}" WITH (FORCE)`,
    );
  });

  it('builds the template once and gives every concurrent caller its own copy of it', async () => {
    created.push(...(await Promise.all([1, 2, 3].map((n) => createTestDatabaseFrom(`copy_${n}`, template)))));
    expect(builds).toBe(1);
    expect(new Set(created.map((database) => database.name)).size).toBe(3);
    for (const database of created) expect(await query(database.url, 'SELECT n FROM seeded')).toEqual([{ n: 42 }]);

    await query(created[0]!.url, 'INSERT INTO seeded VALUES (7)');
    expect(await query(created[1]!.url, 'SELECT count(*)::int AS rows FROM seeded')).toEqual([{ rows: 1 }]);
  });
});
