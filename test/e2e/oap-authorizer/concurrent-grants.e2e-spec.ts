import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { decodeEvent } from '@svc/contracts';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  createAgent,
  createApp,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/**
 * Concurrent grant requests are decided together (group commit): what a caller relies on must hold
 * however the requests are grouped. Spec: OAP grant request, Authority bounds; architecture brief,
 * Performance budget.
 */
describe('POST /api/v1/grants under concurrency', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_concurrent_grants', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  const now = () => clock.now();
  const validUntil = () => new Date(now().getTime() + 3600_000).toISOString();

  async function proofs(count: number): Promise<string[]> {
    return Promise.all(Array.from({ length: count }, () => dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: now() })));
  }

  async function decidedEvents(authorityId: string): Promise<Array<{ decision: string; grantId: string }>> {
    const rows: Array<{ payload: Buffer }> = await db.query(
      `SELECT payload FROM oap.outbox WHERE event_type = 'grant.decided' ORDER BY seq`,
    );
    return rows.map((row) => decodeEvent('grant.decided', row.payload)).filter((event) => event.authorityId === authorityId);
  }

  it('never lets the allowed amounts exceed the aggregate bound, however many requests race', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId, {
      value_bounds: { currency: 'EUR', per_action: '100', aggregate: '100.00' },
    });
    const body = grantBody(agentId, key, { valid_until: validUntil(), value_bounds: { amount_per_action: '12.50', currency: 'EUR' } });
    const results = await Promise.all((await proofs(40)).map((proof) => requestGrant(us, app, key, body, { now: now(), proof })));
    const allowed = results.filter((r) => r.status === 201);
    const denied = results.filter((r) => r.status === 403);
    expect(allowed).toHaveLength(8);
    expect(denied).toHaveLength(32);
    for (const res of denied)
      expect(res.body).toMatchObject({
        decision: 'deny',
        cascade_step: 7,
        denial_category: 'intent_denied',
        reason_code: 'value_exceeds_aggregate',
      });
    const [sum] = await db.query(`SELECT count(*)::int AS n, sum(amount)::text AS total FROM oap.grants WHERE authority_id = $1`, [
      authorityId,
    ]);
    expect(sum).toEqual({ n: 8, total: '100.00' });
    const [decisions] = await db.query(`SELECT count(*)::int AS n FROM oap.decisions WHERE authority_id = $1`, [authorityId]);
    expect(decisions.n).toBe(40);
    const events = await decidedEvents(authorityId);
    expect(
      events
        .filter((event) => event.decision === 'allow')
        .map((event) => event.grantId)
        .sort(),
    ).toEqual(allowed.map((r) => r.body.grant_id as string).sort());
    expect(events.filter((event) => event.decision === 'deny')).toHaveLength(32);
  });

  it('never lets a per-minute bucket or the rate bound be exceeded under concurrency', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId, { time_bounds: { buckets: [{ period: 'minute', max: 5 }] } });
    const body = grantBody(agentId, key, { valid_until: validUntil() });
    const results = await Promise.all((await proofs(30)).map((proof) => requestGrant(us, app, key, body, { now: now(), proof })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    for (const res of results.filter((r) => r.status !== 201))
      expect(res.body).toMatchObject({ cascade_step: 8, reason_code: 'time_bucket_exhausted' });
    const rated = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, rated, { oap_sequence_bounds: { max_per_minute: 3, max_continuation_depth: 2 } });
    const rateResults = await Promise.all(
      (await proofs(20)).map((proof) =>
        requestGrant(us, app, key, grantBody(rated, key, { valid_until: validUntil() }), { now: now(), proof }),
      ),
    );
    expect(rateResults.filter((r) => r.status === 201)).toHaveLength(3);
    for (const res of rateResults.filter((r) => r.status !== 201))
      expect(res.body).toMatchObject({ cascade_step: 13, reason_code: 'sequence_rate_exceeded' });
    const [grants] = await db.query(`SELECT count(*)::int AS n FROM oap.grants WHERE authority_id = $1`, [authorityId]);
    expect(grants.n).toBe(5);
  });

  it('concurrent duplicates of one key among other requests: one grant for the key, 422 for another body, the others unaffected', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId);
    const idem = randomUUID();
    const body = grantBody(agentId, key, { valid_until: validUntil() });
    const other = grantBody(agentId, key, { valid_until: validUntil(), actions: ['quote'] });
    const all = await proofs(40);
    const [duplicates, changed, distinct] = await Promise.all([
      Promise.all(all.slice(0, 25).map((proof) => requestGrant(us, app, key, body, { now: now(), idempotencyKey: idem, proof }))),
      Promise.all(all.slice(25, 30).map((proof) => requestGrant(us, app, key, other, { now: now(), idempotencyKey: idem, proof }))),
      Promise.all(all.slice(30).map((proof) => requestGrant(us, app, key, body, { now: now(), proof }))),
    ]);
    const created = duplicates.filter((r) => r.status === 201);
    expect(duplicates.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(new Set(created.map((r) => r.body.grant_id)).size).toBe(1);
    for (const conflict of duplicates.filter((r) => r.status === 409))
      expect(conflict.body.reason_code).toBe('idempotency_request_in_progress');
    for (const res of changed) expect([422, 409]).toContain(res.status);
    expect(changed.filter((r) => r.status === 422).every((r) => r.body.reason_code === 'idempotency_key_reused')).toBe(true);
    expect(distinct.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 201));
    const replay = await requestGrant(us, app, key, body, { now: now(), idempotencyKey: idem });
    expect(replay.status).toBe(201);
    expect(replay.body.grant_id).toBe(created[0]?.body.grant_id ?? replay.body.grant_id);
    const [grants] = await db.query(
      `SELECT count(*)::int AS n, count(DISTINCT receipt_jti)::int AS receipts FROM oap.grants WHERE authority_id = $1`,
      [authorityId],
    );
    expect(grants).toEqual({ n: 11, receipts: 11 });
    expect(await decidedEvents(authorityId)).toHaveLength(11);
  });

  it('refuses a DPoP proof replayed within the same burst, and one failing request does not fail the others', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
    const body = grantBody(agentId, key, { valid_until: validUntil() });
    const [proof] = await proofs(1);
    const fresh = await proofs(10);
    const other = await createApp(stack, 'other');
    const unknownKey = randomUUID();
    const [replayed, valid, unknown] = await Promise.all([
      Promise.all([0, 1, 2].map(() => requestGrant(us, app, key, body, { now: now(), proof }))),
      Promise.all(fresh.slice(0, 8).map((p) => requestGrant(us, app, key, body, { now: now(), proof: p }))),
      requestGrant(us, other, key, body, { now: now(), proof: fresh[8], idempotencyKey: unknownKey }),
    ]);
    expect(replayed.map((r) => r.status).sort()).toEqual([201, 401, 401]);
    for (const res of replayed.filter((r) => r.status === 401)) expect(res.body.reason_code).toBe('dpop_proof_replayed');
    expect(valid.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 201));
    expect(unknown.status).toBe(404);
    expect(unknown.body.reason_code).toBe('agent_not_found');
    const again = await requestGrant(us, other, key, body, { now: now(), proof: fresh[9], idempotencyKey: unknownKey });
    expect(again.status).toBe(404);
    expect(again.body.reason_code).toBe('agent_not_found');
  });
});
