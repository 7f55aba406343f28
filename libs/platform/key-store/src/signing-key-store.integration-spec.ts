import { createPrivateKey, randomBytes } from 'node:crypto';
import { isDomainError } from '@svc/errors';
import { createDataSource, dropDatabase, ensureDatabase, runMigrations } from '@svc/persistence';
import type { DataSource } from 'typeorm';
import { KeyEncryption, ed25519PublicJwk, signCompactJws, verifyCompactJws } from '@svc/crypto';
import { CreateSigningKeys1795377354475, keysMigrations } from './keys.migrations';
import { SigningKeyStore } from './signing-key-store';

const url = `${process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432'}/svc_test_crypto_${randomBytes(6).toString('hex')}`;
const kekBase64 = randomBytes(32).toString('base64');
const kek = new KeyEncryption(kekBase64);

/** Two data sources stand in for two processes: separate pools, separate caches. */
let processA: DataSource;
let processB: DataSource;

class TestClock {
  private current = Date.parse('2026-03-01T12:00:00Z');
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

async function codeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return isDomainError(error) ? error.code : `non-domain: ${String(error)}`;
  }
  return undefined;
}

async function rowsOf(region: string): Promise<Array<{ kid: string; status: string; retired_at: Date | null }>> {
  return processA.query('SELECT kid, status, retired_at FROM keys.signing_keys WHERE region = $1 ORDER BY version', [region]);
}

beforeAll(async () => {
  await ensureDatabase(url);
  processA = createDataSource({ url, poolSize: 4, applicationName: 'crypto-test-a' });
  processB = createDataSource({ url, poolSize: 4, applicationName: 'crypto-test-b' });
  await processA.initialize();
  await processB.initialize();
  await runMigrations(processA, keysMigrations);
});

afterAll(async () => {
  for (const dataSource of [processA, processB]) {
    if (dataSource?.isInitialized) await dataSource.destroy();
  }
  await dropDatabase(url);
});

/** The store's active kid once a reload behind the callers has landed (polls for up to 5 s). */
async function kidOnceReloaded(store: SigningKeyStore, expected: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  let kid = (await store.activeKey()).kid;
  while (kid !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    kid = (await store.activeKey()).kid;
  }
  return kid;
}

describe('keys migrations', () => {
  it('are applied once and can be re-run', async () => {
    await expect(runMigrations(processB, keysMigrations)).resolves.toEqual([]);
    const applied: Array<{ name: string }> = await processA.query('SELECT name FROM keys.schema_migrations');
    expect(applied.map((row) => row.name)).toEqual(keysMigrations.migrations.map((Migration) => new Migration().name));
  });

  it('down drops the table (checked inside a rolled-back transaction)', async () => {
    const runner = processA.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await new CreateSigningKeys1795377354475().down(runner);
      const [found] = (await runner.query("SELECT to_regclass('keys.signing_keys') AS t")) as Array<{ t: string | null }>;
      expect(found?.t).toBeNull();
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    const [after] = (await processA.query("SELECT to_regclass('keys.signing_keys') AS t")) as Array<{ t: string | null }>;
    expect(after?.t).toBe('keys.signing_keys');
  });

  it('the database itself refuses a second active key per region and a kid not matching region/version', async () => {
    const insert = (kid: string, version: number) =>
      processA.query(
        `INSERT INTO keys.signing_keys (kid, region, version, algorithm, public_jwk, private_key_enc, status)
         VALUES ($1, 'zz', $2, 'EdDSA', '{}'::jsonb, '\\x00'::bytea, 'active')`,
        [kid, version],
      );
    await insert('oap-zz-v1', 1);
    await expect(insert('oap-zz-v2', 2)).rejects.toMatchObject({
      driverError: { constraint: 'keys_signing_keys_one_active_per_region_idx' },
    });
    await expect(insert('oap-zz-v7', 3)).rejects.toMatchObject({ driverError: { constraint: 'keys_signing_keys_kid_format_check' } });
  });
});

describe('SigningKeyStore', () => {
  it('ensureActiveKey racing from two processes creates exactly one v1', async () => {
    const stores = [processA, processB, processA, processB, processA, processB].map((ds) => new SigningKeyStore(ds, 'us', kek));
    const results = await Promise.all(stores.map((store) => store.ensureActiveKey()));
    expect(new Set(results.map((key) => key.kid))).toEqual(new Set(['oap-us-v1']));
    expect(new Set(results.map((key) => key.publicJwk.x)).size).toBe(1);
    expect(await rowsOf('us')).toEqual([{ kid: 'oap-us-v1', status: 'active', retired_at: null }]);
    await expect(stores[0]?.ensureActiveKey()).resolves.toMatchObject({ kid: 'oap-us-v1', version: 1, status: 'active' });
  });

  it('rotate makes v2 active, retires v1, and the JWKS lists both without d', async () => {
    const store = new SigningKeyStore(processA, 'eu', kek);
    const v1 = await store.ensureActiveKey();
    expect((await store.activeKey()).kid).toBe('oap-eu-v1');
    const v2 = await store.rotate();
    expect(v2).toMatchObject({ kid: 'oap-eu-v2', region: 'eu', version: 2, algorithm: 'EdDSA', status: 'active', retiredAt: null });
    expect((await store.activeKey()).kid).toBe('oap-eu-v2');
    const rows = await rowsOf('eu');
    expect(rows.map(({ kid, status }) => ({ kid, status }))).toEqual([
      { kid: 'oap-eu-v1', status: 'retired' },
      { kid: 'oap-eu-v2', status: 'active' },
    ]);
    expect(rows[0]?.retired_at).toBeInstanceOf(Date);
    const jwks = await store.jwks();
    expect(jwks.keys).toEqual([
      { kty: 'OKP', crv: 'Ed25519', x: v2.publicJwk.x, kid: 'oap-eu-v2', alg: 'EdDSA', use: 'sig' },
      { kty: 'OKP', crv: 'Ed25519', x: v1.publicJwk.x, kid: 'oap-eu-v1', alg: 'EdDSA', use: 'sig' },
    ]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    await expect(store.rotate()).resolves.toMatchObject({ kid: 'oap-eu-v3' });
  });

  it('rotate runs the in-transaction hook, and rolls back entirely when it fails', async () => {
    const store = new SigningKeyStore(processA, 'sa', kek);
    await store.ensureActiveKey();
    await expect(
      store.rotate(async () => {
        throw new Error('outbox write failed');
      }),
    ).rejects.toThrow('outbox write failed');
    expect(await rowsOf('sa')).toEqual([{ kid: 'oap-sa-v1', status: 'active', retired_at: null }]);
    const seen: string[] = [];
    await store.rotate(async (manager, key) => {
      const [row] = (await manager.query('SELECT status FROM keys.signing_keys WHERE kid = $1', [key.kid])) as Array<{ status: string }>;
      seen.push(`${key.kid}:${row?.status}`);
    });
    expect(seen).toEqual(['oap-sa-v2:active']);
  });

  it('stores the private key encrypted under the KEK, bound to its kid', async () => {
    const store = new SigningKeyStore(processA, 'in', kek);
    const info = await store.ensureActiveKey();
    const active = await store.activeKey();
    const der = active.privateKey.export({ format: 'der', type: 'pkcs8' });
    const seed = der.subarray(der.length - 32);
    const [row] = (await processA.query('SELECT private_key_enc FROM keys.signing_keys WHERE kid = $1', [info.kid])) as Array<{
      private_key_enc: Buffer;
    }>;
    const stored = row?.private_key_enc ?? Buffer.alloc(0);
    expect(stored.length).toBe(1 + 12 + der.length + 16);
    expect(stored.includes(seed)).toBe(false);
    expect(stored.includes(der)).toBe(false);
    const decrypted = kek.decrypt(stored, info.kid);
    expect(decrypted.equals(der)).toBe(true);
    expect(ed25519PublicJwk(createPrivateKey({ key: decrypted, format: 'der', type: 'pkcs8' }))).toEqual(info.publicJwk);
    const otherKek = new KeyEncryption(randomBytes(32).toString('base64'));
    expect(await codeOf(async () => otherKek.decrypt(stored, info.kid))).toBe('key_decryption_failed');
    expect(await codeOf(async () => kek.decrypt(stored, 'oap-in-v2'))).toBe('key_decryption_failed');
    expect(await codeOf(() => new SigningKeyStore(processB, 'in', otherKek).activeKey())).toBe('key_decryption_failed');
  });

  it('refuses to sign with a key whose published public key was swapped in the table', async () => {
    const store = new SigningKeyStore(processA, 'ca', kek);
    await store.ensureActiveKey();
    const foreign = await new SigningKeyStore(processA, 'cb', kek).ensureActiveKey();
    await processA.query('UPDATE keys.signing_keys SET public_jwk = $1::jsonb WHERE kid = $2', [
      JSON.stringify(foreign.publicJwk),
      'oap-ca-v1',
    ]);
    expect(await codeOf(() => store.activeKey())).toBe('signing_key_corrupt');
  });

  it('activeKey without any key for the region → signing_key_unavailable, and the failure is not cached', async () => {
    const store = new SigningKeyStore(processA, 'nz', kek);
    expect(await codeOf(() => store.activeKey())).toBe('signing_key_unavailable');
    await store.ensureActiveKey();
    await expect(store.activeKey()).resolves.toMatchObject({ kid: 'oap-nz-v1' });
  });

  it('a token signed with v1 still verifies after rotation, in this and in another process', async () => {
    const signer = new SigningKeyStore(processA, 'ap', kek);
    const verifier = new SigningKeyStore(processB, 'ap', kek);
    await signer.ensureActiveKey();
    const now = new Date();
    const claims = { jti: 'rcpt_1', iat: Math.floor(now.getTime() / 1000), exp: Math.floor(now.getTime() / 1000) + 3600 };
    const oldToken = await signCompactJws(await signer.activeKey(), claims, { typ: 'oap+jwt' });
    await signer.rotate();
    const newToken = await signCompactJws(await signer.activeKey(), claims, { typ: 'oap+jwt' });
    for (const store of [signer, verifier]) {
      const resolve = (kid: string) => store.publicKey(kid);
      await expect(verifyCompactJws(oldToken, resolve, { typ: 'oap+jwt', now })).resolves.toMatchObject({ header: { kid: 'oap-ap-v1' } });
      await expect(verifyCompactJws(newToken, resolve, { typ: 'oap+jwt', now })).resolves.toMatchObject({ header: { kid: 'oap-ap-v2' } });
    }
    const unknown = (kid: string) => signer.publicKey(kid);
    const foreign = await signCompactJws({ ...(await signer.activeKey()), kid: 'oap-ap-v99' }, claims, { typ: 'oap+jwt' });
    expect(await codeOf(() => verifyCompactJws(foreign, unknown, { typ: 'oap+jwt', now }))).toBe('jws_unknown_kid');
  });

  it('caches: another process sees a rotation after 60 s, or at once on reload()', async () => {
    const clock = new TestClock();
    const rotator = new SigningKeyStore(processA, 'jp', kek);
    const other = new SigningKeyStore(processB, 'jp', kek, { clock });
    await rotator.ensureActiveKey();
    expect((await other.activeKey()).kid).toBe('oap-jp-v1');
    await rotator.rotate();
    clock.advance(59_000);
    expect((await other.activeKey()).kid).toBe('oap-jp-v1');
    clock.advance(1_000);
    // Older than 60 s: the caller keeps v1 while v2 loads behind it, and the next callers get v2.
    expect((await other.activeKey()).kid).toBe('oap-jp-v1');
    expect(await kidOnceReloaded(other, 'oap-jp-v2')).toBe('oap-jp-v2');
    await rotator.rotate();
    expect((await other.activeKey()).kid).toBe('oap-jp-v2');
    other.reload();
    expect((await other.activeKey()).kid).toBe('oap-jp-v3');
  });

  it('refreshes a stale key without making a caller wait for a connection (a signer inside a transaction holding the last one)', async () => {
    const clock = new TestClock();
    const single = createDataSource({ url, poolSize: 1, applicationName: 'crypto-test-single' });
    await single.initialize();
    try {
      const store = new SigningKeyStore(single, 'sg', kek, { clock });
      await store.ensureActiveKey();
      expect((await store.activeKey()).kid).toBe('oap-sg-v1');
      clock.advance(60_000);
      const signedInside = await single.transaction(async (manager) => {
        await manager.query('SELECT 1');
        return (await store.activeKey()).kid;
      });
      expect(signedInside).toBe('oap-sg-v1');
    } finally {
      await single.destroy();
    }
  });

  it('an unknown kid of the region reloads the key set at most once per unknownKidRefreshMs', async () => {
    const clock = new TestClock();
    const rotator = new SigningKeyStore(processA, 'kr', kek);
    const other = new SigningKeyStore(processB, 'kr', kek, { clock, unknownKidRefreshMs: 1_000 });
    await rotator.ensureActiveKey();
    await expect(other.jwks()).resolves.toMatchObject({ keys: [{ kid: 'oap-kr-v1' }] });
    await rotator.rotate();
    await expect(other.publicKey('oap-kr-v2')).resolves.toBeUndefined();
    clock.advance(1_000);
    await expect(other.publicKey('oap-kr-v2')).resolves.toBeDefined();
    await expect(other.jwks()).resolves.toMatchObject({ keys: [{ kid: 'oap-kr-v2' }, { kid: 'oap-kr-v1' }] });
  });
});
