import { randomUUID } from 'node:crypto';
import { http } from '@svc/testing';
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
 * Every id field of a request body or query is checked against the identifier registry at the
 * edge: a malformed id is refused with 422 naming the field and never reaches a query (a value
 * Postgres cannot store would otherwise fail a whole group commit). Spec: Identifiers, Errors.
 */
describe('id fields of requests are checked at the edge', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;

  beforeAll(async () => {
    stack = await startRegions('oap_id_fields', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
  });
  afterAll(() => stack?.close());

  const validUntil = () => new Date(clock.now().getTime() + 3600_000).toISOString();
  const refusedNaming = (field: string) => ({ reason_code: 'validation_failed', detail: expect.objectContaining({ field }) as unknown });

  it.each([
    ['agent_id', 'agent_us_short'],
    ['agent_id', 'flw_us_aaaaaaaaaaaaaaaaaaaa'],
    ['agent_id', 'agent_zz_aaaaaaaaaaaaaaaaaaaa'],
    ['authority_id', 'auth_us_aaaa'],
  ])('POST /api/v1/grants refuses %s %j with 422 naming the field', async (field, value) => {
    const res = await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: validUntil(), [field]: value }), {
      now: clock.now(),
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject(refusedNaming(field));
  });

  it('POST /api/v1/grants refuses an agent id carrying U+0000 before it reaches the database', async () => {
    const res = await requestGrant(us, app, key, grantBody('a\u0000b', key, { valid_until: validUntil() }), { now: clock.now() });
    expect([400, 422]).toContain(res.status);
    expect(res.body.detail).toMatchObject({ field: 'agent_id' });
    const valid = await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: validUntil() }), { now: clock.now() });
    expect(valid.status).toBe(201);
  });

  it('POST /api/v1/authorities and /api/v1/oap/revocations refuse malformed ids naming the field', async () => {
    const authority = await http('POST', `${us}/api/v1/authorities`, {
      headers: bearer(app.token),
      json: { agent_id: 'agent_1', principal_id: 'user_1', scope_bounds: { allowed: ['payments:*'] }, valid_until: '2027-01-01T00:00:00Z' },
    });
    expect([authority.status, authority.body]).toEqual([422, expect.objectContaining(refusedNaming('agent_id'))]);
    const revocation = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: { ...bearer(app.token), 'idempotency-key': randomUUID() },
      json: { grant_id: 'ath_us_1' },
    });
    expect([revocation.status, revocation.body]).toEqual([422, expect.objectContaining(refusedNaming('grant_id'))]);
  });

  it('POST /api/v1/consent_records and the inbox query refuse malformed flow and application ids naming the field', async () => {
    const record = await http('POST', `${us}/api/v1/consent_records`, {
      headers: bearer(app.token),
      json: {
        flow_id: 'flw_us_nope',
        subject: { external_id: 'user-1' },
        decisions: { newsletter: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: '2026-03-04T10:00:00.000Z',
        idempotency_key: 'key-1',
      },
    });
    expect([record.status, record.body]).toEqual([422, expect.objectContaining(refusedNaming('flow_id'))]);
    const inbox = await http('GET', `${us}/api/v1/inbox?principal_id=user-1&application_id=tp_us_x`, { headers: bearer(app.token) });
    expect([inbox.status, inbox.body]).toEqual([422, expect.objectContaining(refusedNaming('application_id'))]);
  });

  it('refuses malformed authority, agent and grant ids in the path with 422 naming the parameter', async () => {
    const authority = await http('GET', `${us}/api/v1/authorities/auth_us_x`, { headers: bearer(app.token) });
    expect([authority.status, authority.body]).toEqual([422, expect.objectContaining(refusedNaming('authority_id'))]);
    const suspend = await http('POST', `${us}/api/v1/authorities/nope/suspend`, { headers: bearer(app.token), json: {} });
    expect([suspend.status, suspend.body]).toEqual([422, expect.objectContaining(refusedNaming('authority_id'))]);
    const agent = await http('GET', `${us}/api/v1/agents/agent_us_short`, { headers: bearer(app.token) });
    expect([agent.status, agent.body]).toEqual([422, expect.objectContaining(refusedNaming('agent_id'))]);
    const refresh = await http('POST', `${us}/api/v1/grants/ath_us_short/attestation`, {
      headers: { 'idempotency-key': randomUUID() },
      json: { agent_attestation: {} },
    });
    expect([refresh.status, refresh.body]).toEqual([422, expect.objectContaining(refusedNaming('grant_id'))]);
    const known = await http('GET', `${us}/api/v1/agents/${agentId}`, { headers: bearer(app.token) });
    expect(known.status).toBe(200);
  });

  it('publishes the id patterns in the OpenAPI document', async () => {
    const document = await http('GET', `${us}/.well-known/openapi`);
    const schemas = (document.body.components as { schemas: unknown }).schemas as Record<
      string,
      { properties: Record<string, { pattern?: string }> }
    >;
    expect(schemas.GrantRequestBody!.properties.agent_id!.pattern).toBe('^agent_(us|eu|ap|dev)_[a-z2-7]{20}$');
    expect(schemas.GrantRequestBody!.properties.authority_id!.pattern).toBe('^auth_(us|eu|ap|dev)_[a-z2-7]{20}$');
    expect(schemas.RecordConsentBody!.properties.flow_id!.pattern).toBe('^flw_(us|eu|ap|dev)_[a-z2-7]{20}$');
    const paths = document.body.paths as Record<
      string,
      Record<string, { parameters?: Array<{ name: string; schema: { pattern?: string } }> }>
    >;
    const parameter = paths['/api/v1/authorities/{authority_id}']!.get!.parameters!.find((p) => p.name === 'authority_id');
    expect(parameter?.schema.pattern).toBe('^auth_(us|eu|ap|dev)_[a-z2-7]{20}$');
  });
});
