import { randomBytes } from 'node:crypto';
import { FakeClock, loadConfig } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { SigningKeyStore, keysMigrations } from '@svc/key-store';
import { createDataSource, runMigrations } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import { AuditChain } from '../../src/audit-chain.runtime';
import { AuditChainConfig } from '../../src/audit-chain.config';
import { chainOrigin } from '../../src/chain/chain-identity';
import { auditMigrations } from '../../src/migrations';

/** One audit chain on a database of its own, built from the same parts the service runs. */
export interface ChainFixture {
  readonly chain: AuditChain;
  readonly dataSource: DataSource;
  readonly keys: SigningKeyStore;
  readonly clock: FakeClock;
  readonly errors: unknown[];
  close(): Promise<void>;
}

/** A database made for one test file (`createTestDatabase` of @svc/testing), dropped by `close`. */
export interface FixtureDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

export async function openChain(
  database: FixtureDatabase,
  variables: Record<string, string> = {},
  clock = new FakeClock('2026-03-01T00:00:00.000Z'),
): Promise<ChainFixture> {
  const dataSource = createDataSource({ url: database.url, poolSize: 6, applicationName: 'test-audit-chain' });
  await dataSource.initialize();
  await runMigrations(dataSource, keysMigrations);
  await runMigrations(dataSource, auditMigrations);
  const keyEncryptionKey = randomBytes(32).toString('base64');
  const keys = new SigningKeyStore(dataSource, 'us', new KeyEncryption(keyEncryptionKey), { clock });
  await keys.ensureActiveKey();
  const errors: unknown[] = [];
  const chain = new AuditChain({
    dataSource,
    keys,
    config: loadConfig(AuditChainConfig, { REGION: 'us', DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: keyEncryptionKey, ...variables }),
    region: 'us',
    origin: chainOrigin('https://api.test.example', 'us'),
    clock,
    onError: (error) => errors.push(error),
  });
  await chain.appender.ensureGenesis();
  return {
    chain,
    dataSource,
    keys,
    clock,
    errors,
    close: async () => {
      await chain.scheduler.stop();
      await chain.appender.drain();
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** `count` entries of application `applicationId`, appended concurrently. */
export function entries(count: number, applicationId = 'tp_us_aaaaaaaaaaaaaaaaaaaa', prefix = 'evt') {
  return Array.from({ length: count }, (_, i) => ({
    type: i % 2 === 0 ? 'consent.granted' : 'grant.allowed',
    applicationId,
    sourceEventId: `${prefix}-${i}`,
    data: { n: i, note: 'caf\u00e9 \u{1F600}', nested: { b: 2, a: [1, 'x', null, true] } },
  }));
}
