import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { PASSING_BOUNDS, bearer, createAgent, createApp, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from './support';

/** Issue 17 item 2: the application proposes an authority; until the person grants it, no grant is allowed under it. */
describe('POST /api/v1/authorities/proposals', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;

  beforeAll(async () => {
    stack = await startRegions('oap_authority_proposals', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
  });
  afterAll(() => stack?.close());

  it('stores a proposed authority with no principal and a hosted proposal URL; a grant under it is denied at step 3', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: { agent_id: agentId, ...PASSING_BOUNDS, purposes: ['shopping'], valid_until: '2027-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'authority', agent_id: agentId, principal_id: null, status: 'proposed' });
    expect(res.body.proposal_url).toMatch(new RegExp(`^${us}/authorities/[A-Za-z0-9_-]{43}$`));
    const fetched = await http('GET', `${us}/api/v1/authorities/${String(res.body.id)}`, { headers: bearer(app.token) });
    expect(fetched.body).toMatchObject({ status: 'proposed', principal_id: null });
    expect(fetched.body).not.toHaveProperty('proposal_url');

    const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    expect(grant.status).toBe(403);
    expect(grant.body).toMatchObject({ decision: 'deny', cascade_step: 3, reason_code: 'authority_not_granted' });
  });

  it('names the field when the application tries to set the principal of a proposal', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: { agent_id: agentId, principal_id: 'usr_someone', ...PASSING_BOUNDS, valid_until: '2027-01-01T00:00:00Z' },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('principal_id');
  });
});
