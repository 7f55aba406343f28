import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { KeyEncryption } from '@svc/crypto';
import { SigningKeyStore, keysMigrations } from '@svc/key-store';
import { createDataSource, runMigrations } from '@svc/persistence';
import { createTestDatabase, testKeyEncryptionKey, type TestDatabase } from '@svc/testing';
import type { DataSource } from 'typeorm';

const ROOT = join(__dirname, '..', '..');
const RUN_TS = join(ROOT, 'scripts', 'run-ts.js');
const CLI = join(ROOT, 'tools', 'admin', 'cli.ts');
const run = promisify(execFile);

/**
 * Issue 14 item 12: `rotate-keys` must never put a new active signing key under a key-encryption
 * key the running stack does not have.
 */
describe('admin rotate-keys', () => {
  const stackKek = testKeyEncryptionKey();
  let database: TestDatabase;
  let dataSource: DataSource;
  let stateDir: string;

  /** The CLI as an operator runs it, with the given KEY_ENCRYPTION_KEY (or none) and an empty local state folder. */
  function rotate(keyEncryptionKey: string | undefined): Promise<{ stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL_TEMPLATE: database.url, SVC_LOCAL_STATE_DIR: stateDir };
    delete env.KEY_ENCRYPTION_KEY;
    if (keyEncryptionKey) env.KEY_ENCRYPTION_KEY = keyEncryptionKey;
    return run(process.execPath, [RUN_TS, CLI, 'rotate-keys', '--region', 'us'], { cwd: ROOT, env });
  }

  async function keyRows(): Promise<Array<{ kid: string; status: string }>> {
    return dataSource.query(`SELECT kid, status FROM keys.signing_keys WHERE region = 'us' ORDER BY version`);
  }

  beforeAll(async () => {
    database = await createTestDatabase('rotate_keys');
    dataSource = createDataSource({ url: database.url, poolSize: 2, applicationName: 'rotate-keys-test' });
    await dataSource.initialize();
    await runMigrations(dataSource, keysMigrations);
    // The running stack created its first key under its key-encryption key.
    await new SigningKeyStore(dataSource, 'us', new KeyEncryption(stackKek)).ensureActiveKey();
  });

  beforeEach(() => {
    stateDir = mkdtempSync(join(tmpdir(), 'svc-local-'));
  });

  afterEach(() => {
    rmSync(stateDir, { recursive: true, force: true });
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await database?.drop();
  });

  it('refuses with exit 1 naming the missing key when neither KEY_ENCRYPTION_KEY nor the local key file exists, and generates none', async () => {
    await expect(rotate(undefined)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/KEY_ENCRYPTION_KEY is not set and .*key-encryption-key does not exist/),
    });
    expect(readdirSync(stateDir)).toEqual([]);
    expect(await keyRows()).toEqual([{ kid: 'oap-us-v1', status: 'active' }]);
  }, 60_000);

  it('refuses with exit 1 and writes nothing when the given key cannot decrypt the existing keys', async () => {
    await expect(rotate(testKeyEncryptionKey())).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('key_decryption_failed: Signing key oap-us-v1 cannot be decrypted with this key-encryption key'),
    });
    expect(await keyRows()).toEqual([{ kid: 'oap-us-v1', status: 'active' }]);
  }, 60_000);

  it('rotates with the stack key, and the running stack can sign with the new active key', async () => {
    const { stdout } = await rotate(stackKek);
    expect(JSON.parse(stdout.trim())).toEqual({ region: 'us', active_kid: 'oap-us-v2', previous_kid: 'oap-us-v1' });
    expect(await keyRows()).toEqual([
      { kid: 'oap-us-v1', status: 'retired' },
      { kid: 'oap-us-v2', status: 'active' },
    ]);
    await expect(new SigningKeyStore(dataSource, 'us', new KeyEncryption(stackKek)).activeKey()).resolves.toMatchObject({
      kid: 'oap-us-v2',
    });
  }, 60_000);

  it('uses the key the local stack generated into its state folder when KEY_ENCRYPTION_KEY is not set', async () => {
    writeFileSync(join(stateDir, 'key-encryption-key'), stackKek, { mode: 0o600 });
    const { stdout } = await rotate(undefined);
    expect(JSON.parse(stdout.trim())).toMatchObject({ active_kid: 'oap-us-v3', previous_kid: 'oap-us-v2' });
  }, 60_000);
});
