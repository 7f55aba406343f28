import { KeyEncryption } from '@svc/crypto';
import { createTestDatabase, FakeClock, testKeyEncryptionKey, type TestDatabase } from '@svc/testing';
import type { DataSource } from 'typeorm';
import { createDataSource } from '../data-source';
import { runMigrations } from '../migrations';
import { runUnderClaim, type ClaimRef } from './claim-context';
import {
  IDEMPOTENCY_LOCK_MS,
  IDEMPOTENCY_RETENTION_MS,
  IDEMPOTENCY_SWEEP_INTERVAL_MS,
  IdempotencyStore,
  parseIdempotencyKey,
  type StoredAnswer,
} from './idempotency-store';
import { idempotencyMigrations } from './idempotency.migrations';

const answer: StoredAnswer = {
  status: 201,
  headers: { 'content-type': 'application/json; charset=utf-8', location: '/api/v1/things/thg_1' },
  body: Buffer.from('{"id":"thg_1","secret":"sk_once"}'),
};

/**
 * A database of its own with the store's tables and a `things` table, and the store as two
 * processes see it (each its own pool, built as every region's data source is, so the recovery
 * point is registered on both); handed over once ready, closed and dropped after the block.
 */
function twoProcessesOnOneDatabase(
  label: string,
  clock: FakeClock,
  ready: (stores: { dataSource: DataSource; second: DataSource; store: IdempotencyStore; otherProcess: IdempotencyStore }) => void,
): void {
  let database: TestDatabase | undefined;
  let dataSource: DataSource | undefined;
  let second: DataSource | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(label);
    dataSource = createDataSource({ url: database.url, poolSize: 3, applicationName: `test-${label}` });
    second = createDataSource({ url: database.url, poolSize: 2, applicationName: `test-${label}-2` });
    await Promise.all([dataSource.initialize(), second.initialize()]);
    await runMigrations(dataSource, idempotencyMigrations);
    await dataSource.query(`CREATE TABLE public.things (id text PRIMARY KEY)`);
    const kek = new KeyEncryption(testKeyEncryptionKey());
    ready({
      dataSource,
      second,
      store: new IdempotencyStore(dataSource, clock, kek),
      otherProcess: new IdempotencyStore(second, clock, kek),
    });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await second?.destroy();
    await database?.drop();
  });
}

/** The platform Idempotency-Key store (spec: API conventions; IETF httpapi-idempotency-key-header). */
describe('IdempotencyStore (real Postgres)', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let dataSource: DataSource;
  let store: IdempotencyStore;
  let otherProcess: IdempotencyStore;
  twoProcessesOnOneDatabase('platform_idempotency', clock, (stores) => ({ dataSource, store, otherProcess } = stores));

  it('replays the stored answer (status, headers, body) for the same caller, key and request', async () => {
    const first = await store.claim('app:tp_a', 'k-replay', 'fp-1');
    expect(first.state).toBe('new');
    if (first.state !== 'new') return;
    await store.complete(first.claim, answer);
    expect(await store.claim('app:tp_a', 'k-replay', 'fp-1')).toEqual({ state: 'replay', answer });
    expect(await otherProcess.claim('app:tp_a', 'k-replay', 'fp-1')).toEqual({ state: 'replay', answer });
  });

  it('stores answers sealed: no body byte in clear in the table', async () => {
    const rows: Array<{ response_enc: Buffer }> = await dataSource.query(
      `SELECT response_enc FROM idempotency.requests WHERE response_enc IS NOT NULL`,
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.response_enc.includes(Buffer.from('sk_once'))).toBe(false);
  });

  it('refuses the same key with another request with 422 idempotency_key_reused, naming the header', async () => {
    await expect(store.claim('app:tp_a', 'k-replay', 'fp-2')).rejects.toMatchObject({
      kind: 'unprocessable',
      code: 'idempotency_key_reused',
      detail: { field: 'Idempotency-Key' },
    });
  });

  it('scopes keys per caller: another caller with the same key runs its own request', async () => {
    expect((await store.claim('app:tp_b', 'k-replay', 'fp-2')).state).toBe('new');
    expect((await store.claim('person:tp_a:usr_us_1:', 'k-replay', 'fp-1')).state).toBe('new');
  });

  it('lets exactly one of two concurrent same-key requests run; the other is 409 in progress with Retry-After', async () => {
    const outcomes = await Promise.allSettled([
      store.claim('app:tp_a', 'k-race', 'fp-1'),
      otherProcess.claim('app:tp_a', 'k-race', 'fp-1'),
    ]);
    const ran = outcomes.filter((o) => o.status === 'fulfilled' && o.value.state === 'new');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(ran).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({
      kind: 'conflict',
      code: 'idempotency_key_in_progress',
      headers: { 'Retry-After': '1' },
      detail: { field: 'Idempotency-Key' },
    });
  });

  it('runs a batch of 20 concurrent same-key requests exactly once; after it completes every retry replays', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? store : otherProcess).claim('app:tp_a', 'k-many', 'fp-1')),
    );
    const ran = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value.state === 'new' ? [o.value.claim] : []));
    expect(ran).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(19);
    await store.complete(ran[0]!, answer);
    const retries = await Promise.all(Array.from({ length: 5 }, () => otherProcess.claim('app:tp_a', 'k-many', 'fp-1')));
    expect(retries.every((r) => r.state === 'replay')).toBe(true);
  });

  it('reclaims the key of a crashed request once its lock (at most 30 s) expired; the late holder can no longer store', async () => {
    expect(IDEMPOTENCY_LOCK_MS).toBeLessThanOrEqual(30_000);
    const crashed = await store.claim('app:tp_a', 'k-crash', 'fp-1');
    clock.advance(IDEMPOTENCY_LOCK_MS - 1);
    await expect(store.claim('app:tp_a', 'k-crash', 'fp-1')).rejects.toMatchObject({ code: 'idempotency_key_in_progress' });
    // Another request cannot take the stuck key with another body.
    clock.advance(2);
    await expect(store.claim('app:tp_a', 'k-crash', 'fp-other')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    const retry = await otherProcess.claim('app:tp_a', 'k-crash', 'fp-1');
    expect(retry.state).toBe('new');
    if (crashed.state !== 'new' || retry.state !== 'new') return;
    await store.complete(crashed.claim, { ...answer, status: 200 });
    await otherProcess.complete(retry.claim, answer);
    expect(await store.claim('app:tp_a', 'k-crash', 'fp-1')).toEqual({ state: 'replay', answer });
  });

  it('frees the key of a failed request so a corrected retry runs', async () => {
    const failed = await store.claim('app:tp_a', 'k-failed', 'fp-1');
    if (failed.state !== 'new') throw new Error('expected a new claim');
    await store.release(failed.claim);
    expect((await store.claim('app:tp_a', 'k-failed', 'fp-2')).state).toBe('new');
  });

  it('keeps answers 24 h; after that the key is free, and the sweeper deletes rows past retention', async () => {
    const fresh = await store.claim('app:tp_c', 'k-old', 'fp-1');
    if (fresh.state !== 'new') throw new Error('expected a new claim');
    await store.complete(fresh.claim, answer);
    expect(IDEMPOTENCY_RETENTION_MS).toBeGreaterThanOrEqual(24 * 3600 * 1000);
    clock.advance(IDEMPOTENCY_RETENTION_MS - 1_000);
    expect((await store.claim('app:tp_c', 'k-old', 'fp-1')).state).toBe('replay');
    clock.advance(IDEMPOTENCY_SWEEP_INTERVAL_MS + 2_000);
    expect(await store.sweep()).toBeGreaterThan(0);
    const rows: unknown[] = await dataSource.query(`SELECT 1 FROM idempotency.requests WHERE caller = 'app:tp_c'`);
    expect(rows).toHaveLength(0);
    expect((await store.claim('app:tp_c', 'k-old', 'fp-2')).state).toBe('new');
  });
});

/**
 * The recovery point: a request's claim is marked applied inside its business transaction, so a
 * process killed after that commit and before the answer is stored never runs the request again.
 */
describe('IdempotencyStore recovery point (real Postgres)', () => {
  const clock = new FakeClock('2026-03-05T08:00:00.000Z');
  let dataSource: DataSource;
  let second: DataSource;
  let store: IdempotencyStore;
  let otherProcess: IdempotencyStore;
  twoProcessesOnOneDatabase('platform_idempotency_recovery', clock, (stores) => ({ dataSource, second, store, otherProcess } = stores));

  const newClaim = async (key: string): Promise<ClaimRef> => {
    const outcome = await store.claim('app:tp_r', key, 'fp-1');
    if (outcome.state !== 'new') throw new Error(`expected a new claim of ${key}`);
    return outcome.claim;
  };
  /** The business transaction of a handler: one row, optionally failing before its commit. */
  const insertThing = (id: string, fail = false, on: DataSource = dataSource): Promise<void> =>
    on.transaction(async (manager) => {
      await manager.query(`INSERT INTO public.things (id) VALUES ($1)`, [id]);
      if (fail) throw new Error('the handler failed');
    });
  const appliedAt = async (key: string): Promise<Date | null | undefined> => {
    const rows: Array<{ applied_at: Date | null }> = await dataSource.query(
      `SELECT applied_at FROM idempotency.requests WHERE caller = 'app:tp_r' AND key = $1`,
      [key],
    );
    return rows[0]?.applied_at;
  };
  const things = async (id: string): Promise<number> =>
    ((await dataSource.query(`SELECT count(*)::int AS n FROM public.things WHERE id = $1`, [id])) as Array<{ n: number }>)[0]!.n;

  it('marks the claim applied in the business transaction that commits; one that rolls back or only reads marks nothing', async () => {
    const claim = await newClaim('k-applied');
    const running = store.running(claim);
    await runUnderClaim(running, async () => {
      await expect(insertThing('thing-rolled-back', true)).rejects.toThrow('the handler failed');
      await dataSource.transaction((manager) => manager.query(`SELECT count(*) FROM public.things`));
    });
    expect([await appliedAt('k-applied'), running.applied, await things('thing-rolled-back')]).toEqual([null, false, 0]);
    await runUnderClaim(running, () => insertThing('thing-applied'));
    const marked = await appliedAt('k-applied');
    expect([marked, running.applied, await things('thing-applied')]).toEqual([clock.now(), true, 1]);
    // Only the first commit writes the mark.
    clock.advance(1_000);
    await runUnderClaim(running, () => insertThing('thing-applied-2'));
    expect(await appliedAt('k-applied')).toEqual(marked);
    // A transaction outside the request's context never marks it.
    const other = await newClaim('k-outside');
    await insertThing('thing-outside');
    expect(await appliedAt('k-outside')).toBeNull();
    await store.release(other);
  });

  it('never runs an applied claim whose answer was lost again: every retry is the final 409 idempotency_key_answer_lost', async () => {
    const claim = await newClaim('k-lost');
    await runUnderClaim(store.running(claim), () => insertThing('thing-lost'));
    // The process dies here: no answer stored. While the lock lasts the holder may still answer.
    await expect(otherProcess.claim('app:tp_r', 'k-lost', 'fp-1')).rejects.toMatchObject({ code: 'idempotency_key_in_progress' });
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    await expect(store.claim('app:tp_r', 'k-lost', 'fp-other')).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    for (const process of [otherProcess, store, otherProcess]) {
      const refusal = await process.claim('app:tp_r', 'k-lost', 'fp-1').then(
        (outcome) => ({ outcome }),
        (error: unknown) => error,
      );
      expect(refusal).toMatchObject({ kind: 'conflict', code: 'idempotency_key_answer_lost', detail: { field: 'Idempotency-Key' } });
      expect((refusal as { headers?: Record<string, string> }).headers?.['Retry-After']).toBeUndefined();
    }
    // A late answer of the holder does not change what retries were told.
    await store.complete(claim, answer);
    await expect(store.claim('app:tp_r', 'k-lost', 'fp-1')).rejects.toMatchObject({ code: 'idempotency_key_answer_lost' });
    expect(await things('thing-lost')).toBe(1);
  });

  it('still takes over an expired claim whose request committed nothing (it never ran: running it is right)', async () => {
    const claim = await newClaim('k-unapplied');
    await runUnderClaim(store.running(claim), () => expect(insertThing('thing-unapplied', true)).rejects.toThrow());
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const retry = await otherProcess.claim('app:tp_r', 'k-unapplied', 'fp-1');
    expect(retry.state).toBe('new');
  });

  it('rolls back the business transaction of a late holder whose claim was taken over: only the successor applies', async () => {
    const late = await newClaim('k-late');
    clock.advance(IDEMPOTENCY_LOCK_MS + 1);
    const successor = await otherProcess.claim('app:tp_r', 'k-late', 'fp-1');
    if (successor.state !== 'new') throw new Error('expected the takeover');
    await expect(runUnderClaim(store.running(late), () => insertThing('thing-late'))).rejects.toMatchObject({
      code: 'idempotency_key_in_progress',
    });
    expect(await things('thing-late')).toBe(0);
    // The successor's process: its own data source holds its claim.
    await runUnderClaim(otherProcess.running(successor.claim), () => insertThing('thing-successor', false, second));
    expect(await appliedAt('k-late')).not.toBeNull();
  });

  it('keeps the key of a request that committed and then failed: its 4xx answer is replayed, a 5xx is answer lost', async () => {
    const refused = await newClaim('k-committed-4xx');
    await runUnderClaim(store.running(refused), () => insertThing('thing-4xx'));
    const conflict: StoredAnswer = {
      status: 409,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"reason_code":"x"}'),
    };
    await store.release(refused, conflict);
    expect(await store.claim('app:tp_r', 'k-committed-4xx', 'fp-1')).toEqual({ state: 'replay', answer: conflict });

    const crashed = await newClaim('k-committed-5xx');
    await runUnderClaim(store.running(crashed), () => insertThing('thing-5xx'));
    await store.release(crashed, { status: 500, headers: {}, body: Buffer.from('{}') });
    await expect(store.claim('app:tp_r', 'k-committed-5xx', 'fp-1')).rejects.toMatchObject({ code: 'idempotency_key_answer_lost' });

    // Committed nothing: the key is freed as before, whatever the answer.
    const failed = await newClaim('k-failed-4xx');
    await store.release(failed, conflict);
    expect((await store.claim('app:tp_r', 'k-failed-4xx', 'fp-2')).state).toBe('new');
  });
});

describe('parseIdempotencyKey', () => {
  it('accepts 1-255 visible ASCII characters and refuses anything else with 400 naming the header', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('6f1c2e1a-6c59-4c5e-9a53-1f1d2c3b4a5e')).toBe('6f1c2e1a-6c59-4c5e-9a53-1f1d2c3b4a5e');
    expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'x'.repeat(256), 'has space', 'tab\t', 'é', ['a', 'b']]) {
      expect(() => parseIdempotencyKey(bad)).toThrow(
        expect.objectContaining({ kind: 'invalid', code: 'idempotency_key_invalid', detail: { field: 'Idempotency-Key' } }),
      );
    }
  });
});
