import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { KeyEncryption } from '@svc/crypto';
import { isDomainError } from '@svc/errors';
import { createDataSource, dropDatabase, ensureDatabase, runMigrations } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import { JoseKeyStore } from './jose-key-store';
import { keysMigrations } from './keys.migrations';

const url = `${process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432'}/svc_test_jose_${randomBytes(6).toString('hex')}`;
const kek = new KeyEncryption(randomBytes(32).toString('base64'));
let dataSource: DataSource;

beforeAll(async () => {
  await ensureDatabase(url);
  dataSource = createDataSource({ url, poolSize: 6, applicationName: 'jose-keys-test' });
  await dataSource.initialize();
  await runMigrations(dataSource, keysMigrations);
});

afterAll(async () => {
  if (dataSource?.isInitialized) await dataSource.destroy();
  await dropDatabase(url);
});

/** RSA and P-256 keys of ID tokens: same kid family, encrypted at rest, created once. */
describe('JoseKeyStore', () => {
  it('creates exactly one active RS256 and one ES256 key per region, whatever the number of processes racing at boot', async () => {
    await Promise.all(Array.from({ length: 5 }, () => new JoseKeyStore(dataSource, 'us', kek).ensureActiveKeys()));
    const rows: Array<{ kid: string; algorithm: string; status: string }> = await dataSource.query(
      `SELECT kid, algorithm, status FROM keys.jose_keys WHERE region = 'us' ORDER BY kid`,
    );
    expect(rows).toEqual([
      { kid: 'oap-us-es256-v1', algorithm: 'ES256', status: 'active' },
      { kid: 'oap-us-rs256-v1', algorithm: 'RS256', status: 'active' },
    ]);
  });

  it('stores private halves encrypted under the kid, and serves private JWKs that match the public ones', async () => {
    const store = new JoseKeyStore(dataSource, 'us', kek);
    const [row] = (await dataSource.query(`SELECT private_key_enc FROM keys.jose_keys WHERE kid = 'oap-us-rs256-v1'`)) as Array<{
      private_key_enc: Buffer;
    }>;
    expect(() => createPrivateKey({ key: row!.private_key_enc, format: 'der', type: 'pkcs8' })).toThrow();
    expect(() => kek.decrypt(row!.private_key_enc, 'oap-us-es256-v1')).toThrow();

    const privateJwks = await store.activePrivateJwks();
    const publicJwks = await store.publicJwks();
    expect(publicJwks.every((jwk) => !('d' in jwk))).toBe(true);
    for (const jwk of privateJwks) {
      const message = Buffer.from('id token');
      const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
      const publicKey = createPublicKey({ key: publicJwks.find((p) => p.kid === jwk.kid)!, format: 'jwk' });
      const signature = sign(jwk.alg === 'RS256' ? 'sha256' : 'sha256', message, privateKey);
      expect(verify('sha256', message, publicKey, signature)).toBe(true);
    }
    expect(privateJwks.map((jwk) => [jwk.kid, jwk.alg, jwk.kty])).toEqual([
      ['oap-us-es256-v1', 'ES256', 'EC'],
      ['oap-us-rs256-v1', 'RS256', 'RSA'],
    ]);
  });

  it('refuses to serve a key whose stored public half was swapped, and a store with another key-encryption key', async () => {
    await new JoseKeyStore(dataSource, 'eu', kek).ensureActiveKeys();
    const other = createPublicKey(
      createPrivateKey({ key: (await new JoseKeyStore(dataSource, 'us', kek).activePrivateJwks())[0]!, format: 'jwk' }),
    ).export({ format: 'jwk' });
    await dataSource.query(`UPDATE keys.jose_keys SET public_jwk = $1::jsonb WHERE kid = 'oap-eu-es256-v1'`, [JSON.stringify(other)]);
    const corrupt = await new JoseKeyStore(dataSource, 'eu', kek).activePrivateJwks().catch((error: unknown) => error);
    expect(isDomainError(corrupt) && corrupt.code).toBe('signing_key_corrupt');
    const wrongKek = await new JoseKeyStore(dataSource, 'us', new KeyEncryption(randomBytes(32).toString('base64')))
      .activePrivateJwks()
      .catch((error: unknown) => error);
    expect(isDomainError(wrongKek) && wrongKek.code).toBe('key_decryption_failed');
  });
});
