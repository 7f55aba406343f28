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
  await withServer((client) => client.query(sql));
}

async function withServer<T>(work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: `${TEST_DATABASE_SERVER}/postgres` });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function testDatabaseName(label: string): string {
  const safe = label
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '_')
    .slice(0, 30);
  return `svc_test_${safe}_${randomBase32(8)}`;
}

function dropper(name: string): () => Promise<void> {
  return () => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/**
 * Creates a database of its own for one test file (`svc_test_<label>_<random>`), so files run in
 * parallel without seeing each other's rows. Call `drop()` in afterAll.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = testDatabaseName(label);
  await onServer(`CREATE DATABASE "${name}"`);
  return { url: `${TEST_DATABASE_SERVER}/${name}`, name, drop: dropper(name) };
}

/** A database every copy of which starts with the same content (e.g. a region's migrated schemas). */
export interface DatabaseTemplate {
  /** Equal fingerprints, equal content: a new fingerprint builds a new template. */
  fingerprint: string;
  /** Fills a new, empty database; must close its connections before it resolves. */
  build(url: string): Promise<void>;
}

/** Templates not used for this long are dropped by the next run that builds one. */
const TEMPLATE_MAX_IDLE_MS = 60 * 60_000;

/**
 * {@link createTestDatabase}, copied from a template database (`svc_tpl_<fingerprint>`) built once
 * per fingerprint and kept between runs, so each file skips work like migrating a region from
 * scratch. Builds and copies happen under one advisory lock, because Postgres refuses to copy a
 * database anybody is connected to; templates idle for an hour are dropped then too.
 */
export async function createTestDatabaseFrom(label: string, template: DatabaseTemplate): Promise<TestDatabase> {
  const name = testDatabaseName(label);
  const templateName = `svc_tpl_${template.fingerprint.slice(0, 24)}`;
  await withServer(async (client) => {
    await client.query(`SELECT pg_advisory_lock(hashtext('svc_test_templates'))`);
    try {
      const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [templateName]);
      if (found.rowCount === 0) {
        await dropIdleTemplates(client);
        const building = `${templateName}_build`;
        await client.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
        await client.query(`CREATE DATABASE "${building}"`);
        await template.build(`${TEST_DATABASE_SERVER}/${building}`);
        await client.query(`ALTER DATABASE "${building}" RENAME TO "${templateName}"`);
      }
      await client.query(`COMMENT ON DATABASE "${templateName}" IS '${Date.now()}'`);
      await client.query(`CREATE DATABASE "${name}" TEMPLATE "${templateName}"`);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(hashtext('svc_test_templates'))`);
    }
  });
  return { url: `${TEST_DATABASE_SERVER}/${name}`, name, drop: dropper(name) };
}

async function dropIdleTemplates(client: Client): Promise<void> {
  const templates = await client.query<{ datname: string; used: string | null }>(
    `SELECT datname, shobj_description(oid, 'pg_database') AS used FROM pg_database WHERE datname LIKE 'svc\\_tpl\\_%'`,
  );
  for (const { datname, used } of templates.rows) {
    if (Date.now() - Number(used ?? 0) > TEMPLATE_MAX_IDLE_MS) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  }
}
