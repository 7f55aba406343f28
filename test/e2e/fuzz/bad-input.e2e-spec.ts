import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, type HttpResult } from '@svc/testing';
import { createAgent, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey } from '../oap-authorizer/support';
import { startRegions, type TestRegions } from '../support/regions';

type Answer = [number, unknown, unknown?];
const answer = (res: HttpResult, withField = false): Answer =>
  withField
    ? [res.status, res.body.reason_code, (res.body.detail as { field?: unknown } | undefined)?.field]
    : [res.status, res.body.reason_code];

/** Issue 14 items 3, 4, 7 and 10 (413), each as the probe reproduced it against a running region. */
describe('bad input over HTTP answers 4xx with the envelope, never 5xx', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let key: AgentKey;
  let agentId: string;
  let attester: { id: string; token: string };
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${app.token}` });
  const post = (path: string, raw: string | Buffer, headers: Record<string, string> = { ...auth(), 'content-type': 'application/json' }) =>
    http('POST', `${us}${path}`, { headers, raw });

  beforeAll(async () => {
    stack = await startRegions('bad_input', { regions: ['us'] });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'bad-input', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
    const res = await http<{ trusted_attester: { id: string; token: string } }>('POST', `${us}/api/v1/trusted_attesters`, {
      headers: auth(),
      json: { name: 'engine', permissions: ['attestations:submit', 'attestations:heartbeat'] },
    });
    attester = res.body.trusted_attester;
  });
  afterAll(() => stack?.close());

  describe('deep JSON (item 4)', () => {
    it('answers 400 json_too_deep to a 3 KB body nested 2,000 levels, anonymous route included', async () => {
      const deep = `{"receipt":"x","zz":${'['.repeat(2_000)}${']'.repeat(2_000)}}`;
      expect(answer(await post('/.well-known/svc-decode', deep, { 'content-type': 'application/json' }))).toEqual([400, 'json_too_deep']);
      expect(answer(await post('/api/v1/flows', deep))).toEqual([400, 'json_too_deep']);
    });

    it('answers 400 json_too_deep to a 600 KB body nested 300,000 levels', async () => {
      const deep = `{"name":"a","zz":${'['.repeat(300_000)}${']'.repeat(300_000)}}`;
      expect(answer(await post('/api/v1/agents', deep))).toEqual([400, 'json_too_deep']);
    });
  });

  describe('strings Postgres cannot store (item 3)', () => {
    const flow = (name: string): string =>
      JSON.stringify({ name, locale: 'en', presentation: { title: 't' }, purposes: [{ key: 'n', label: 'N' }] });

    it('answers 400 naming the field to U+0000 and lone surrogates in bodies', async () => {
      expect(answer(await post('/api/v1/flows', flow('a\u0000b')), true)).toEqual([400, 'invalid_request', 'name']);
      expect(answer(await post('/api/v1/flows', flow('a\ud800')), true)).toEqual([400, 'invalid_request', 'name']);
      const heartbeat = await post('/api/v1/oap/attestations/heartbeat', '{"status":"ok","engine_version":"a\\u0000"}', {
        authorization: `Bearer ${attester.token}`,
        'content-type': 'application/json',
      });
      expect(answer(heartbeat, true)).toEqual([400, 'invalid_request', 'engine_version']);
      const grant = await requestGrant(us, app, key, grantBody('a\u0000b', key), { now: new Date() });
      expect(answer(grant, true)).toEqual([400, 'invalid_request', 'agent_id']);
    });

    it('answers 400 naming the parameter to U+0000 in a query string', async () => {
      const routes = `${us}/api/v1/oap/attestations/agent_class_routes`;
      expect(answer(await http('GET', `${routes}?agent_class=a%00b`, { headers: auth() }), true)).toEqual([
        400,
        'invalid_request',
        'agent_class',
      ]);
      expect(answer(await http('DELETE', `${routes}?agent_class=a%00b`, { headers: auth() }), true)).toEqual([
        400,
        'invalid_request',
        'agent_class',
      ]);
    });

    it('answers 400 malformed_json to bytes that are not UTF-8, and stores nothing', async () => {
      const bytes = Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from('"}')]);
      expect(answer(await post('/api/v1/agents', bytes))).toEqual([400, 'malformed_json']);
      const agents = await http('GET', `${us}/api/v1/agents`, { headers: auth() });
      expect(JSON.stringify(agents.body)).not.toContain('\ufffd');
    });

    it('answers 415 unsupported_media_type to a JSON body without Content-Type: application/json', async () => {
      const body = JSON.stringify({ name: 'shopper' });
      expect(answer(await post('/api/v1/agents', Buffer.from(body), auth()))).toEqual([415, 'unsupported_media_type']);
      expect(answer(await post('/api/v1/agents', body, { ...auth(), 'content-type': 'text/plain' }))).toEqual([
        415,
        'unsupported_media_type',
      ]);
      expect(answer(await post('/api/v1/agents', body, { ...auth(), 'content-type': 'application/json; charset=utf-16' }))).toEqual([
        415,
        'unsupported_media_type',
      ]);
    });
  });

  describe('null for optional fields (item 7)', () => {
    it('refuses scopes: null on a new API token, naming the field', async () => {
      expect(answer(await post(`/api/v1/applications/${app.id}/api_tokens`, '{"name":"x","scopes":null}'), true)).toEqual([
        400,
        'invalid_request',
        'scopes',
      ]);
    });

    it('refuses overlap_seconds: null on an attester rotation, naming the field', async () => {
      expect(answer(await post(`/api/v1/trusted_attesters/${attester.id}/rotate`, '{"overlap_seconds":null}'), true)).toEqual([
        400,
        'invalid_request',
        'overlap_seconds',
      ]);
    });

    it('refuses null inside nested bounds, naming the field (value_bounds.per_action: null made every grant of the authority 500)', async () => {
      const body = (bounds: Record<string, unknown>) =>
        JSON.stringify({
          agent_id: agentId,
          principal_id: 'user_2',
          purposes: ['shopping'],
          valid_until: '2027-06-01T00:00:00Z',
          ...bounds,
        });
      expect(answer(await post('/api/v1/authorities', body({ value_bounds: { currency: 'EUR', per_action: null } })), true)).toEqual([
        400,
        'invalid_request',
        'value_bounds.per_action',
      ]);
      expect(answer(await post('/api/v1/authorities', body({ time_bounds: null })), true)).toEqual([400, 'invalid_request', 'time_bounds']);
    });

    it('refuses agent_credential: null on a grant request, naming the field', async () => {
      const grant = await requestGrant(us, app, key, grantBody(agentId, key, { agent_credential: null }), { now: new Date() });
      expect(answer(grant, true)).toEqual([400, 'invalid_request', 'agent_credential']);
    });
  });

  it('answers 413 payload_too_large to an oversized body (item 10)', async () => {
    expect(answer(await post('/api/v1/agents', JSON.stringify({ name: 'x'.repeat(1_100_000) })))).toEqual([413, 'payload_too_large']);
  });
});
