import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  PASSING_BOUNDS,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/** Spec: Cascade denial categories (step 15 drift, trajectory_denied); architecture brief, Interpretations (Drift). */
describe('step 15: the action mix leaving the declared purpose', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;

  beforeAll(async () => {
    stack = await startRegions('oap_purpose_drift', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
  });
  afterAll(() => stack?.close());

  /** Shopping names pay and quote; the catalog wildcard is allowed latitude, not the purpose. */
  async function shoppingAgent(actionBounds: Record<string, unknown>): Promise<string> {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      action_bounds: actionBounds,
      value_bounds: { ...PASSING_BOUNDS.value_bounds, aggregate: '100000' },
    });
    return agentId;
  }
  const grant = (agentId: string, actions: string[]) =>
    requestGrant(us, app, key, grantBody(agentId, key, { actions }), { now: clock.now() });

  it('denies purpose_drift (403, trajectory_denied, step 15) once more than half of the last grants are off-purpose, and still allows on-purpose requests', async () => {
    const agentId = await shoppingAgent({ allowed: ['pay', 'quote', 'catalog:*'] });
    for (const actions of [
      ['pay'],
      ['quote'],
      ['catalog:export'],
      ['catalog:export'],
      ['catalog:export'],
      ['pay'],
      ['catalog:export'],
      ['catalog:export'],
      ['catalog:export'],
    ]) {
      expect((await grant(agentId, actions)).status).toBe(201);
    }
    // Counting this request: 7 of 10 grants are off-purpose.
    const drifted = await grant(agentId, ['catalog:export']);
    expect(drifted.status).toBe(403);
    expect(drifted.body).toMatchObject({
      decision: 'deny',
      reason_code: 'purpose_drift',
      denial_category: 'trajectory_denied',
      cascade_step: 15,
    });
    expect((await grant(agentId, ['pay'])).status).toBe(201);
  });

  it('does not judge an authority that names no purpose action (wildcards only)', async () => {
    const agentId = await shoppingAgent({ allowed: ['catalog:*'] });
    for (let i = 0; i < 11; i += 1) expect((await grant(agentId, ['catalog:export'])).status).toBe(201);
  });
});
