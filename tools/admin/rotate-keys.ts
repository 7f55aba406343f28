import type { Region } from '@svc/config';
import { KEYS_SCHEMA, KeyEncryption, SigningKeyStore, keysMigrations } from '@svc/crypto';
import { OutboxWriter, runMigrations } from '@svc/persistence';
import { localKeyEncryptionKey } from '@svc/region-stack';
import type { DataSource } from 'typeorm';

/**
 * Rotates the region's signing key: version N+1 becomes active, N stays verifiable (and in the
 * JWKS). The rotation event commits with the new key; running services reload on it.
 */
export async function rotateKeys(dataSource: DataSource, region: Region): Promise<Record<string, unknown>> {
  await runMigrations(dataSource, keysMigrations);
  const store = new SigningKeyStore(dataSource, region, new KeyEncryption(localKeyEncryptionKey()));
  const previous = await store.ensureActiveKey();
  const outbox = new OutboxWriter(KEYS_SCHEMA, region);
  const rotated = await store.rotate((manager, key) =>
    outbox.add(manager, 'keys.signing_key_rotated', { kid: key.kid, version: key.version }).then(() => undefined),
  );
  return { region, active_kid: rotated.kid, previous_kid: previous.kid };
}
