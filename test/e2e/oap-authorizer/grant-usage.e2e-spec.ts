import { DataSource } from 'typeorm';
import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  bearer,
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
 * Lifetime bounds (value_bounds aggregate, action_bounds max_actions, sequence ordering) hold
 * exactly across many batches of grants, revoked grants included, and sequence bounds see grants
 * in the order they were requested. Spec: Authority bounds; OAP grant request (cascade steps 7,
 * 12, 13).
 */
describe('POST /api/v1/grants: lifetime usage and grant order across batches', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_grant_usage', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  const validUntil = () => new Date(clock.now().getTime() + 3600_000).toISOString();

  async function burst(count: number, body: Record<string, unknown>) {
    const proofs = await Promise.all(
      Array.from({ length: count }, () => dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: clock.now() })),
    );
    return Promise.all(proofs.map((proof) => requestGrant(us, app, key, body, { now: clock.now(), proof })));
  }

  const allowedIds = (results: Array<{ status: number; body: Record<string, unknown> }>) =>
    results.filter((r) => r.status === 201).map((r) => r.body.grant_id as string);

  it('counts every batch exactly against the aggregate and max_actions, revoked grants included', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId, {
      value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '1.00' },
      action_bounds: { allowed: ['pay', 'quote'], max_actions: 12 },
    });
    const pay = grantBody(agentId, key, { valid_until: validUntil(), value_bounds: { amount_per_action: '0.10', currency: 'EUR' } });

    const first = allowedIds(await burst(4, pay));
    expect(first).toHaveLength(4);
    expect(allowedIds(await burst(3, pay))).toHaveLength(3);
    for (const grantId of first.slice(0, 2)) {
      const revoked = await http('POST', `${us}/api/v1/oap/revocations`, {
        headers: bearer(app.token),
        json: { grant_id: grantId, reason: 'compromised' },
      });
      expect(revoked.status).toBe(201);
    }
    // 0.70 granted (0.20 of it revoked, still spent): three more 0.10 reach 1.00 exactly.
    const third = await burst(6, pay);
    expect(allowedIds(third)).toHaveLength(3);
    for (const res of third.filter((r) => r.status !== 201))
      expect(res.body).toMatchObject({ decision: 'deny', cascade_step: 7, reason_code: 'value_exceeds_aggregate' });

    const quote = grantBody(agentId, key, { valid_until: validUntil(), actions: ['quote'], value_bounds: undefined });
    const fourth = await burst(4, quote);
    expect(allowedIds(fourth)).toHaveLength(2);
    for (const res of fourth.filter((r) => r.status !== 201))
      expect(res.body).toMatchObject({ decision: 'deny', cascade_step: 12, reason_code: 'max_actions_reached' });

    const [usage] = await db.query(`SELECT total_grants::int AS total, granted_actions FROM oap.authority_usage WHERE authority_id = $1`, [
      authorityId,
    ]);
    expect(usage).toEqual({ total: 12, granted_actions: ['pay', 'quote'] });
    const [amount] = await db.query(
      `SELECT amount::text AS amount FROM oap.authority_usage_amounts WHERE authority_id = $1 AND currency = 'EUR'`,
      [authorityId],
    );
    const [scan] = await db.query(`SELECT count(*)::int AS n, sum(amount)::text AS total FROM oap.grants WHERE authority_id = $1`, [
      authorityId,
    ]);
    expect(scan).toEqual({ n: 12, total: '1.00' });
    expect(amount.amount).toBe('1.00');
  });

  it('lets an ordered action follow its predecessor granted in an earlier batch', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      oap_sequence_bounds: { max_per_minute: 1000, max_continuation_depth: 2, ordering: ['quote', 'pay'] },
    });
    const pay = grantBody(agentId, key, { valid_until: validUntil() });
    const early = await requestGrant(us, app, key, pay, { now: clock.now() });
    expect(early.body).toMatchObject({ decision: 'deny', cascade_step: 13, reason_code: 'sequence_order_violated' });
    expect(
      (await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: validUntil(), actions: ['quote'] }), { now: clock.now() }))
        .status,
    ).toBe(201);
    expect((await requestGrant(us, app, key, pay, { now: clock.now() })).status).toBe(201);
  });

  it('judges repetition by the order grants were requested in, though they share a timestamp', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agentId, {
      oap_sequence_bounds: { max_per_minute: 1000, max_continuation_depth: 2, max_repetitions: 2 },
    });
    const body = (action: string) => grantBody(agentId, key, { valid_until: validUntil(), actions: [action] });
    for (const action of ['pay', 'pay', 'quote', 'pay', 'pay'])
      expect((await requestGrant(us, app, key, body(action), { now: clock.now() })).status).toBe(201);
    const third = await requestGrant(us, app, key, body('pay'), { now: clock.now() });
    expect(third.body).toMatchObject({ decision: 'deny', cascade_step: 13, reason_code: 'sequence_repetition_exceeded' });
    expect((await requestGrant(us, app, key, body('quote'), { now: clock.now() })).status).toBe(201);
    const rows: Array<{ action: string }> = await db.query(
      `SELECT actions[1] AS action FROM oap.grants WHERE authority_id = $1 ORDER BY seq`,
      [authorityId],
    );
    expect(rows.map((row) => row.action)).toEqual(['pay', 'pay', 'quote', 'pay', 'pay', 'quote']);
  });
});
