import { DataSource } from 'typeorm';
import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  PASSING_BOUNDS,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/**
 * A bound is an object of its declared shape holding at least one constraint or an explicit
 * `unrestricted: true`: absence is never unlimited, and neither is an empty or wrongly shaped
 * bound. Creation refuses one naming the field (422; a null is refused by the platform-wide null
 * rule, 400); one already stored fails closed at its cascade step. Spec: Authority bounds.
 */
describe('authority bounds must be enforceable', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_bounds_shape', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  const createWith = (overrides: Record<string, unknown>) =>
    http('POST', `${us}/api/v1/authorities`, {
      headers: bearer(app.token),
      json: {
        agent_id: agentId,
        principal_id: 'user_1',
        ...PASSING_BOUNDS,
        purposes: ['shopping'],
        valid_until: '2027-01-01T00:00:00Z',
        ...overrides,
      },
    });
  const validUntil = () => new Date(clock.now().getTime() + 3600_000).toISOString();

  it.each([
    ['time_bounds', {}],
    ['time_bounds', []],
    ['time_bounds', { unrestricted: false }],
    ['reputation_bounds', {}],
    ['reputation_bounds', []],
    ['oap_sequence_bounds', {}],
    ['oap_sequence_bounds', []],
    ['scope_bounds', {}],
    ['jurisdiction_bounds', []],
  ])('refuses %s = %j with 422 naming the field', async (field, value) => {
    const res = await createWith({ [field]: value });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ reason_code: 'validation_failed', detail: { field } });
  });

  it.each([
    ['time_bounds', { time_bounds: null }],
    ['reputation_bounds', { reputation_bounds: null }],
    ['oap_sequence_bounds', { oap_sequence_bounds: null }],
    ['value_bounds.per_action', { value_bounds: { currency: 'EUR', per_action: null } }],
  ])('refuses null for %s at creation (the platform-wide null rule: 400 naming the field)', async (field, overrides) => {
    const res = await createWith(overrides);
    expect([res.status, res.body]).toEqual([
      400,
      expect.objectContaining({ reason_code: 'invalid_request', detail: expect.objectContaining({ field }) }),
    ]);
  });

  it('refuses a wrongly typed constraint at creation, naming the field', async () => {
    const res = await createWith({ value_bounds: { currency: 'EUR', per_action: 12 } });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.detail).toMatchObject({ field: 'value_bounds.per_action' });
  });

  it('accepts an explicit unrestricted: true, which lets grants through its step', async () => {
    const unrestricted = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities`, {
      headers: bearer(app.token),
      json: {
        agent_id: unrestricted,
        principal_id: 'user_1',
        ...PASSING_BOUNDS,
        time_bounds: { unrestricted: true },
        reputation_bounds: { unrestricted: true },
        oap_sequence_bounds: { unrestricted: true },
        valid_until: '2027-01-01T00:00:00Z',
      },
    });
    expect(res.status).toBe(201);
    const grant = await requestGrant(us, app, key, grantBody(unrestricted, key, { valid_until: validUntil() }), { now: clock.now() });
    expect(grant.status).toBe(201);
  });

  it.each([
    ['time_bounds', {}, 8],
    ['time_bounds', [], 8],
    ['reputation_bounds', {}, 9],
    ['oap_sequence_bounds', [], 13],
    ['value_bounds', { currency: 'EUR', per_action: null }, 7],
  ])('a stored %s of %j fails closed: 403 bounds_invalid at step %i, never allow, never 500', async (bound, stored, step) => {
    const agent = await createAgent(us, app, { manifest: true });
    const authorityId = await createAuthority(us, app, agent);
    const [row] = (await db.query('SELECT bounds_json FROM oap.authorities WHERE id = $1', [authorityId])) as Array<{
      bounds_json: string;
    }>;
    await db.query('UPDATE oap.authorities SET bounds_json = $2 WHERE id = $1', [
      authorityId,
      JSON.stringify({ ...JSON.parse(row!.bounds_json), [bound]: stored }),
    ]);
    const answers = await Promise.all(
      [0, 1, 2].map(() => requestGrant(us, app, key, grantBody(agent, key, { valid_until: validUntil() }), { now: clock.now() })),
    );
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ decision: 'deny', cascade_step: step, reason_code: 'bounds_invalid' });
    }
  });
});
