import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

const JKT = 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs';

/** Spec: the Delegate surface, `/agent_identities` and `/application_agents`. */
describe('agent identities and application agents', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let other: { id: string; token: string };
  const auth = (a: { token: string }) => ({ authorization: `Bearer ${a.token}` });

  beforeAll(async () => {
    stack = await startRegions('agent-identities', { regions: ['us'] });
    us = stack.url.us;
    const create = stack.process.us.app.get(CreateApplication);
    const a = await create.execute(CreateApplicationCommand.create({ name: 'agents app', environment: 'development' }));
    const b = await create.execute(CreateApplicationCommand.create({ name: 'other app', environment: 'development' }));
    app = { id: a.application.id, token: a.apiToken };
    other = { id: b.application.id, token: b.apiToken };
  });
  afterAll(() => stack?.close());

  it('registers an identity with provider, model and DPoP key, and shows its published manifest', async () => {
    const created = await http('POST', `${us}/api/v1/agent_identities`, {
      headers: auth(app),
      json: { name: 'Shopper', provider: 'example-ai', model: 'example-model-2', dpop_jkt: JKT, agent_type: 'assistant' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'agent_identity',
      application_id: app.id,
      name: 'Shopper',
      provider: 'example-ai',
      model: 'example-model-2',
      agent_type: 'assistant',
      dpop_jkt: JKT,
      status: 'active',
      capability_manifest: null,
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^agent_us_/);
    const published = await http('POST', `${us}/api/v1/agents/${id}/capabilities`, {
      headers: auth(app),
      json: { scopes: [{ id: 'payments:card', label: 'Pay by card' }], actions: ['pay'] },
    });
    expect(published.status).toBe(201);
    const read = await http('GET', `${us}/api/v1/agent_identities/${id}`, { headers: auth(app) });
    expect(read.status).toBe(200);
    expect(read.body.capability_manifest).toMatchObject({
      version_id: published.body.version_id,
      manifest_sha256: published.body.manifest_sha256,
      scopes: ['payments:card'],
      actions: ['pay'],
    });
    const foreign = await http('GET', `${us}/api/v1/agent_identities/${id}`, { headers: auth(other) });
    expect(foreign.status).toBe(404);

    const runs = await http('GET', `${us}/api/v1/application_agents`, { headers: auth(app) });
    expect(runs.status).toBe(200);
    expect(runs.body.data).toEqual([
      expect.objectContaining({
        object: 'application_agent',
        application_id: app.id,
        agent_id: id,
        name: 'Shopper',
        capability_version_id: published.body.version_id,
        scope_count: 1,
      }),
    ]);
    const none = await http('GET', `${us}/api/v1/application_agents`, { headers: auth(other) });
    expect(none.body).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('pages identities with a cursor and names the field of bad input', async () => {
    for (const name of ['A', 'B', 'C']) {
      const res = await http('POST', `${us}/api/v1/agent_identities`, {
        headers: auth(other),
        json: { name, provider: 'p', model: 'm', dpop_jkt: JKT },
      });
      expect(res.status).toBe(201);
    }
    const first = await http('GET', `${us}/api/v1/agent_identities?limit=2`, { headers: auth(other) });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await http('GET', `${us}/api/v1/agent_identities?limit=2&cursor=${first.body.next_cursor as string}`, {
      headers: auth(other),
    });
    expect((second.body.data as Array<{ name: string }>).map((a) => a.name)).toEqual(['C']);
    expect(second.body.next_cursor).toBeNull();

    const badKey = await http('POST', `${us}/api/v1/agent_identities`, {
      headers: auth(other),
      json: { name: 'x', provider: 'p', model: 'm', dpop_jkt: 'short' },
    });
    expect(badKey.status).toBe(422);
    expect(JSON.stringify(badKey.body)).toContain('dpop_jkt');
    const badType = await http('POST', `${us}/api/v1/agent_identities`, {
      headers: auth(other),
      json: { name: 'x', provider: 'p', model: 'm', dpop_jkt: JKT, agent_type: 'robot' },
    });
    expect(badType.status).toBe(400);
    expect(badType.body.reason_code).toBe('agent_type_outside_taxonomy');
    const badCursor = await http('GET', `${us}/api/v1/application_agents?cursor=nope`, { headers: auth(other) });
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.reason_code).toBe('invalid_cursor');
  });
});
