import { KeyEncryption } from '@svc/crypto';
import { runMigrations } from '@svc/persistence';
import { createTestDatabase, FakeClock, testKeyEncryptionKey, type TestDatabase } from '@svc/testing';
import { DataSource } from 'typeorm';
import { oapMigrations } from '../migrations';
import { IDEMPOTENCY_LOCK_MS, IdempotencyStore, replayHeaders } from './idempotency-store';

/** Idempotency-Key semantics (spec: OAP grant request; issue: in-progress lock at most 30 s, replays marked). */
describe('IdempotencyStore (real Postgres)', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: IdempotencyStore;

  beforeAll(async () => {
    database = await createTestDatabase('oap_idempotency');
    dataSource = new DataSource({ type: 'postgres', url: database.url, poolSize: 2 });
    await dataSource.initialize();
    await runMigrations(dataSource, oapMigrations);
    store = new IdempotencyStore(dataSource, clock, new KeyEncryption(testKeyEncryptionKey()));
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('holds an in-flight key for at most 30 s: a duplicate is 409 until then, and may take the key over after', async () => {
    expect(IDEMPOTENCY_LOCK_MS).toBeLessThanOrEqual(30_000);
    expect(await store.claim('tp_app', 'grants', 'key-crashed', 'sha-a')).toEqual({ state: 'new' });
    clock.advance(IDEMPOTENCY_LOCK_MS - 1_000);
    await expect(store.claim('tp_app', 'grants', 'key-crashed', 'sha-a')).rejects.toMatchObject({
      code: 'idempotency_request_in_progress',
    });
    clock.advance(1_001);
    expect(await store.claim('tp_app', 'grants', 'key-crashed', 'sha-a')).toEqual({ state: 'new' });
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    await expect(store.claim('tp_app', 'grants', 'key-crashed', 'sha-b')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('marks a stored response as replayed when it answers a repeated request, and only then', async () => {
    expect(await store.claim('tp_app', 'grants', 'key-done', 'sha-a')).toEqual({ state: 'new' });
    const response = { status: 201, body: { grant_id: 'ath_us_aaaaaaaaaaaaaaaaaaaaaaaa' } };
    expect(replayHeaders(response)).toEqual({});
    await dataSource.transaction((manager) => store.complete(manager, 'tp_app', 'grants', 'key-done', response));
    const replay = await store.claim('tp_app', 'grants', 'key-done', 'sha-a');
    expect(replay).toEqual({ state: 'replay', response: { ...response, replayed: true } });
    expect(replay.state === 'replay' && replayHeaders(replay.response)).toEqual({ 'idempotent-replayed': 'true' });
  });
});
