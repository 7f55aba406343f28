import { randomBytes } from 'node:crypto';
import { isDomainError } from '@svc/errors';
import type { DataSource } from 'typeorm';
import { KeyEncryption, generateEd25519KeyPair } from '@svc/crypto';
import { SigningKeyStore } from './signing-key-store';

const kek = new KeyEncryption(randomBytes(32).toString('base64'));

/** A DataSource double answering the store's two read queries from memory and counting them. */
function fakeDataSource() {
  const pair = generateEd25519KeyPair();
  const kid = 'oap-us-v1';
  const row = {
    kid,
    region: 'us',
    version: 1,
    algorithm: 'EdDSA',
    status: 'active',
    public_jwk: pair.publicJwk,
    private_key_enc: kek.encrypt(pair.privateKey.export({ format: 'der', type: 'pkcs8' }), kid),
    created_at: new Date(),
    retired_at: null,
  };
  const queries: string[] = [];
  const dataSource = {
    query: async (sql: string) => {
      queries.push(sql);
      await new Promise((resolve) => setImmediate(resolve));
      return [row];
    },
  } as unknown as DataSource;
  return { dataSource, queries, pair };
}

describe('SigningKeyStore (no database)', () => {
  it.each(['US', 'u-s', '', 'a'.repeat(17), '1us', 'us;drop'])('refuses region %j with signing_region_invalid', (region) => {
    let code: string | undefined;
    try {
      new SigningKeyStore(fakeDataSource().dataSource, region, kek);
    } catch (error) {
      code = isDomainError(error) ? error.code : String(error);
    }
    expect(code).toBe('signing_region_invalid');
  });

  it('answers kids of other regions or formats as unknown without querying', async () => {
    const { dataSource, queries } = fakeDataSource();
    const store = new SigningKeyStore(dataSource, 'us', kek);
    for (const kid of ['oap-eu-v1', 'oap-us-v01', 'oap-us-v0', 'oap-us-v1 ', "oap-us-v1' OR 1=1", 'us-v1', '']) {
      await expect(store.publicKey(kid)).resolves.toBeUndefined();
    }
    expect(queries).toEqual([]);
    await expect(store.publicKey('oap-us-v1')).resolves.toBeDefined();
    expect(queries).toHaveLength(1);
  });

  it('concurrent activeKey() callers share one load, then the cache serves them', async () => {
    const { dataSource, queries, pair } = fakeDataSource();
    const store = new SigningKeyStore(dataSource, 'us', kek);
    const keys = await Promise.all([store.activeKey(), store.activeKey(), store.activeKey()]);
    expect(keys.map((key) => key.kid)).toEqual(['oap-us-v1', 'oap-us-v1', 'oap-us-v1']);
    expect(keys[0]?.publicJwk).toEqual(pair.publicJwk);
    await store.activeKey();
    expect(queries).toHaveLength(1);
    store.reload();
    await store.activeKey();
    expect(queries).toHaveLength(2);
  });

  it('serialises the JWKS once per key set and hands it over synchronously only while that key set is fresh', async () => {
    const { dataSource, queries } = fakeDataSource();
    let now = 1_000_000;
    const store = new SigningKeyStore(dataSource, 'us', kek, { cacheTtlMs: 60_000, clock: { now: () => new Date(now) } });
    expect(store.currentJwksDocument()).toBeUndefined();
    const document = await store.jwksDocument();
    expect(document.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(JSON.parse(document.body)).toEqual(await store.jwks());
    expect(store.currentJwksDocument()).toBe(document);
    expect(await store.jwksDocument()).toBe(document);
    expect(queries).toHaveLength(1);
    // A rotation here, or its event from another process, drops it at once.
    store.reload();
    expect(store.currentJwksDocument()).toBeUndefined();
    await store.jwksDocument();
    expect(store.currentJwksDocument()).toEqual(document);
    expect(queries).toHaveLength(2);
    // Past the cache lifetime (the bound of a missed rotation event) the route reads the keys again.
    now += 60_000;
    expect(store.currentJwksDocument()).toBeUndefined();
  });

  it('kidFor formats oap-<region>-v<N>', () => {
    expect(new SigningKeyStore(fakeDataSource().dataSource, 'eu', kek).kidFor(12)).toBe('oap-eu-v12');
  });
});
