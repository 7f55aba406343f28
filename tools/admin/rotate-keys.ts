import type { Region } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { KEYS_SCHEMA, SigningKeyStore, keysMigrations } from '@svc/key-store';
import { OutboxWriter, runMigrations } from '@svc/persistence';
import { LOCAL_KEY_ENCRYPTION_KEY_FILE } from '@svc/region-stack';
import type { DataSource } from 'typeorm';

/** The rotation cannot run as configured; the message says what is missing. */
export class RotationRefused extends Error {}

/** Why `rotate-keys` refuses to run without the key-encryption key the region's keys are under. */
export function missingKeyEncryptionKeyMessage(): string {
  return (
    `KEY_ENCRYPTION_KEY is not set and ${LOCAL_KEY_ENCRYPTION_KEY_FILE} does not exist: ` +
    'rotate-keys needs the key-encryption key the running stack uses (a new one could not decrypt the existing signing keys); nothing was changed'
  );
}

/**
 * Rotates the region's signing key: version N+1 becomes active, N stays verifiable (and in the
 * JWKS). The rotation event commits with the new key; running services reload on it. Refuses
 * without a key-encryption key, and writes nothing unless that key decrypts every existing key.
 */
export async function rotateKeys(
  dataSource: DataSource,
  region: Region,
  keyEncryptionKey: string | undefined,
): Promise<Record<string, unknown>> {
  if (!keyEncryptionKey) throw new RotationRefused(missingKeyEncryptionKeyMessage());
  await runMigrations(dataSource, keysMigrations);
  const store = new SigningKeyStore(dataSource, region, new KeyEncryption(keyEncryptionKey));
  const previous = await store.ensureActiveKey();
  const outbox = new OutboxWriter(KEYS_SCHEMA, region);
  const rotated = await store.rotate((manager, key) =>
    outbox.add(manager, 'keys.signing_key_rotated', { kid: key.kid, version: key.version }).then(() => undefined),
  );
  return { region, active_kid: rotated.kid, previous_kid: previous.kid };
}
