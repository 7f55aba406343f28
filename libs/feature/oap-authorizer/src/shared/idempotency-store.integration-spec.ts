import { KeyEncryption } from '@svc/crypto';
import { runMigrations } from '@svc/persistence';
import { createTestDatabase, FakeClock, testKeyEncryptionKey, type TestDatabase } from '@svc/testing';
import { DataSource, type EntityManager } from 'typeorm';
import { oapMigrations } from '../migrations';
import { IDEMPOTENCY_LOCK_MS, IdempotencyStore, replayHeaders } from './idempotency-store';
import { ReplayCache } from './replay-cache';

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

  it('claims a batch and records its one-time values in one statement: a replayed value claims nothing, and its key stays free', async () => {
    const replay = new ReplayCache(dataSource);
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + 60_000);
    expect(
      await dataSource.transaction((manager) => replay.firstUseMany(manager, 'dpop', [{ value: 'jti-used', expiresAt }], now)),
    ).toEqual([true]);
    await dataSource.transaction((manager) =>
      store.claimMany(manager, 'grants', [{ applicationId: 'tp_app', key: 'batch-done', requestSha256: 'sha-a' }], now),
    );
    const response = { status: 201, body: { grant_id: 'ath_us_bbbbbbbbbbbbbbbbbbbbbbbb' } };
    await dataSource.transaction((manager) =>
      store.completeMany(manager, 'grants', [{ applicationId: 'tp_app', key: 'batch-done', response }]),
    );
    const proofs = replay.recording(
      'dpop',
      [
        { value: 'jti-used', expiresAt },
        { value: 'jti-1', expiresAt },
        { value: 'jti-2', expiresAt },
        undefined,
        { value: 'jti-3', expiresAt },
        { value: 'jti-4', expiresAt },
        { value: 'jti-1', expiresAt },
      ],
      now,
    );
    expect(proofs.repeated).toEqual([false, false, false, false, false, false, true]);
    const entries = [
      { applicationId: 'tp_app', key: 'batch-a', requestSha256: 'sha-a' },
      { applicationId: 'tp_app', key: 'batch-a', requestSha256: 'sha-a' },
      { applicationId: 'tp_app', key: 'batch-a', requestSha256: 'sha-b' },
      { applicationId: 'tp_app', key: 'batch-b', requestSha256: 'sha-a' },
      { applicationId: 'tp_app', key: 'batch-done', requestSha256: 'sha-a' },
      { applicationId: 'tp_app', key: 'batch-done', requestSha256: 'sha-b' },
    ].map((entry, index) => ({ ...entry, gate: proofs.digests[index] }));
    let statements = 0;
    /** Runs `work`, counting the statements it sends through the transaction's connection. */
    async function counted<T>(manager: EntityManager, work: () => Promise<T>): Promise<T> {
      const runner = manager.queryRunner!;
      const query = runner.query.bind(runner);
      runner.query = ((...args: Parameters<typeof query>) => {
        statements += 1;
        return query(...args);
      }) as typeof runner.query;
      try {
        return await work();
      } finally {
        runner.query = query;
      }
    }
    const claims = await dataSource.transaction((manager) =>
      counted(manager, () => store.claimMany(manager, 'grants', entries, now, proofs)),
    );
    expect(claims.map((claim) => (claim.state === 'refused' ? (claim.error as { code: string }).code : claim.state))).toEqual([
      'unrecorded',
      'new',
      'idempotency_key_reused',
      'new',
      'replay',
      'idempotency_key_reused',
    ]);
    expect(claims[4]).toEqual({ state: 'replay', response: { ...response, replayed: true } });
    // The claims and the values in one round trip, one more to read the keys held before.
    expect(statements).toBe(2);
    const recorded = await dataSource.transaction((manager) =>
      replay.firstUseMany(
        manager,
        'dpop',
        ['jti-1', 'jti-2', 'jti-3', 'jti-4', 'jti-5'].map((value) => ({ value, expiresAt })),
        now,
      ),
    );
    expect(recorded).toEqual([false, false, false, false, true]);

    statements = 0;
    const fresh = replay.recording('dpop', [{ value: 'jti-6', expiresAt }, undefined], now);
    const again = await dataSource.transaction((manager) =>
      counted(manager, () =>
        store.claimMany(
          manager,
          'grants',
          [
            { applicationId: 'tp_app', key: 'batch-c', requestSha256: 'sha-a', gate: fresh.digests[0] },
            { applicationId: 'tp_app', key: 'batch-d', requestSha256: 'sha-a' },
          ],
          now,
          fresh,
        ),
      ),
    );
    expect(again).toEqual([{ state: 'new' }, { state: 'new' }]);
    expect(statements).toBe(1);
  });
});
