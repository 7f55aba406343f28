import { http, waitFor } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/**
 * Spec: OAP escalations (approve, deny, counter); issue 17 item 7: the counter proposal of a
 * Conductor escalation reaches the agent at `GET /api/v1/oap/escalations/:id`, not only by webhook.
 */
describe('a countered escalation', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;

  beforeAll(async () => {
    stack = await startRegions('esc_counter', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack, 'esc-counter');
    key = await newAgentKey();
  });
  afterAll(() => stack?.close());

  const read = async (id: string) =>
    http<Record<string, unknown>>('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) });

  it("carries the approver's counter proposal to the agent, after the approver counters on the decision surface", async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      escalation_bounds: { amount_over: '20.00', actions: ['pay'], quorum_type: 'all', approvers: ['user_1'], approval_ttl_seconds: 3600 },
    });
    const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    expect(grant.status).toBe(202);
    const id = grant.body.escalation_id as string;
    const token = grant.body.session_token as string;

    const pending = await read(id);
    expect(pending.body).toMatchObject({ id, status: 'pending', counter_proposal: null });

    await waitFor(async () => (await http('GET', `${us}/api/v1/decisions/${token}/state`)).status === 200, 15_000);
    const moved = await http('POST', `${us}/api/v1/decisions/${token}/transitions`, {
      json: { action: 'counter', counter_proposal: { amount: '20.00', currency: 'EUR' } },
    });
    expect(moved.status).toBe(200);

    const countered = await waitFor(async () => {
      const res = await read(id);
      return res.body.status === 'countered' ? res.body : undefined;
    }, 15_000);
    expect(countered).toMatchObject({ id, status: 'countered', grant_id: null, counter_proposal: { amount: '20.00', currency: 'EUR' } });
    expect(countered.resolved_at).toEqual(expect.any(String));
    expect(countered).not.toHaveProperty('agent_token');
  });

  it('shows no counter proposal on an escalation that was not countered', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      escalation_bounds: { amount_over: '20.00', actions: ['pay'], quorum_type: 'all', approvers: ['user_1'], approval_ttl_seconds: 3600 },
    });
    const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    const token = grant.body.session_token as string;
    await waitFor(async () => (await http('GET', `${us}/api/v1/decisions/${token}/state`)).status === 200, 15_000);
    expect((await http('POST', `${us}/api/v1/decisions/${token}/transitions`, { json: { action: 'deny' } })).status).toBe(200);
    const denied = await waitFor(async () => {
      const res = await read(grant.body.escalation_id as string);
      return res.body.status === 'denied' ? res.body : undefined;
    }, 15_000);
    expect(denied.counter_proposal).toBeNull();
  });
});
