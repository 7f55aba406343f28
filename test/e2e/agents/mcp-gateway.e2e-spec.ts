import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { RecordEscalationVote } from '@svc/oap-authorizer';
import { http } from '@svc/testing';
import { generateProof, type KeyPair } from 'dpop';
import {
  ACCESS_TOKEN_TYPE,
  JWT_TOKEN_TYPE,
  actorToken,
  agentKey,
  exchange,
  grantAuthority,
  personAccessToken,
  startAgentWorld,
  type AgentWorld,
} from './support';
import { startUpstream, type Upstream } from './upstream';

/**
 * Spec: `/mcp/v1/agent`, Authentication rules 6–7. The whole agent story with real clients: a
 * person signs in (openid-client), the agent exchanges the access token for a DPoP-bound agent
 * token (proofs by `dpop`), then lists and calls tools with the SDK's own MCP client against an
 * upstream MCP server, every call decided by the cascade.
 */
describe('MCP gateway', () => {
  let world: AgentWorld;
  let upstream: Upstream;
  let key: KeyPair;
  let agentToken: string;
  let personToken: string;

  /** The agent's fetch: `Authorization: DPoP <token>` and a fresh proof of each request. */
  const dpopFetch =
    (token: string, proofKey: () => KeyPair) =>
    async (url: string | URL, init?: RequestInit): Promise<Response> => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `DPoP ${token}`);
      headers.set('dpop', await generateProof(proofKey(), String(url), init?.method ?? 'GET', undefined, token));
      return fetch(url, { ...init, headers });
    };

  async function connect(token: string, proofKey: () => KeyPair = () => key): Promise<Client> {
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${world.url}/mcp/v1/agent`), { fetch: dpopFetch(token, proofKey) }));
    return client;
  }

  async function refusal(call: Promise<unknown>): Promise<McpError> {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  beforeAll(async () => {
    world = await startAgentWorld('agents_mcp');
    upstream = await startUpstream();
    await grantAuthority(world, {
      scope_bounds: { allowed: ['payments:*'] },
      action_bounds: { allowed: ['pay', 'quote'] },
      value_bounds: { currency: 'EUR', per_action: '100.00', aggregate: '1000.00' },
      escalation_bounds: { amount_over: '50.00', quorum_type: 'all', approvers: [world.personId] },
      time_bounds: { unrestricted: true },
      reputation_bounds: { unrestricted: true },
      oap_sequence_bounds: { unrestricted: true },
    });
    const registered = await http('POST', `${world.url}/api/v1/mcp_servers`, {
      headers: { authorization: `Bearer ${world.app.token}` },
      json: {
        name: 'shop',
        url: upstream.url,
        tools: [
          { name: 'pay', action: 'pay', scope: 'payments:write', value: { amount_argument: 'amount', currency: 'EUR' } },
          { name: 'quote', action: 'quote', scope: 'payments:read' },
          { name: 'wipe', action: 'wipe', scope: 'files:write' },
        ],
      },
    });
    expect(registered.status).toBe(201);
    key = await agentKey();
    const exchanged = await exchange(
      world,
      {
        subject_token: (personToken = await personAccessToken(world)),
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: await actorToken(key, world.agentId, world.url),
        actor_token_type: JWT_TOKEN_TYPE,
        scope: 'payments:write payments:read',
      },
      await generateProof(key, `${world.url}/oauth/token/exchange`, 'POST'),
    );
    expect(exchanged.status).toBe(200);
    agentToken = exchanged.body.access_token as string;
  });
  afterAll(async () => {
    await upstream?.close();
    await world?.close();
  });
  beforeEach(() => world.clock.set(new Date().toISOString()));

  it('publishes RFC 9728 metadata and the MCP configuration, and challenges a call without a token', async () => {
    const metadata = await http('GET', `${world.url}/.well-known/oauth-protected-resource/mcp/v1/agent`);
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      resource: `${world.url}/mcp/v1/agent`,
      authorization_servers: [world.url],
      dpop_bound_access_tokens_required: true,
    });
    const configuration = await http('GET', `${world.url}/.well-known/mcp-configuration`);
    expect(configuration.body).toMatchObject({
      mcp_endpoint: `${world.url}/mcp/v1/agent`,
      protocol_version: '2025-11-25',
      token_exchange_endpoint: `${world.url}/oauth/token/exchange`,
    });
    const anonymous = await fetch(`${world.url}/mcp/v1/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain(
      `resource_metadata="${world.url}/.well-known/oauth-protected-resource/mcp/v1/agent"`,
    );
  });

  it('lists only the tools the agent may call', async () => {
    const client = await connect(agentToken);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['pay', 'quote']);
    await client.close();
  });

  it('forwards an allowed call upstream with the runtime receipt in _meta', async () => {
    const client = await connect(agentToken);
    const result = await client.callTool({ name: 'pay', arguments: { amount: '20.00', payee: 'bakery' } });
    expect(result.content).toEqual([{ type: 'text', text: expect.stringContaining('bakery') }]);
    expect(result._meta?.['oap/receipt']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(result._meta?.['oap/grant_id']).toMatch(/^ath_us_/);
    expect(upstream.calls.at(-1)).toEqual({ name: 'pay', args: { amount: '20.00', payee: 'bakery' } });
    await client.close();
  });

  it('denies a call above the bound with denial_category and cascade_step, never reaching upstream', async () => {
    const client = await connect(agentToken);
    const before = upstream.calls.length;
    const error = await refusal(client.callTool({ name: 'pay', arguments: { amount: '150.00', payee: 'jeweller' } }));
    expect(error.code).toBe(-32003);
    expect(error.data).toMatchObject({ decision: 'deny', denial_category: expect.any(String), cascade_step: 7 });
    const unlisted = await refusal(client.callTool({ name: 'wipe', arguments: {} }));
    expect(unlisted.message).toContain('Unknown tool');
    expect(upstream.calls.length).toBe(before);
    await client.close();
  });

  it('escalates with the decision URL; once the person approves, the retried call passes once', async () => {
    const client = await connect(agentToken);
    const args = { amount: '75.00', payee: 'airline' };
    const escalated = await refusal(client.callTool({ name: 'pay', arguments: args }));
    expect(escalated.code).toBe(-32004);
    const data = escalated.data as { decision_url: string; escalation_id: string };
    expect(data.decision_url).toMatch(new RegExp(`^${world.url}/decisions/`));
    const pending = await refusal(client.callTool({ name: 'pay', arguments: args, _meta: { 'oap/escalation_id': data.escalation_id } }));
    expect(pending.code).toBe(-32004);

    await world.stack.process.us.app.get(RecordEscalationVote).execute(data.escalation_id, world.personId, 'approve');
    const retried = await client.callTool({ name: 'pay', arguments: args, _meta: { 'oap/escalation_id': data.escalation_id } });
    expect(retried._meta?.['oap/receipt']).toEqual(expect.any(String));
    expect(upstream.calls.at(-1)).toEqual({ name: 'pay', args });
    const again = await refusal(client.callTool({ name: 'pay', arguments: args, _meta: { 'oap/escalation_id': data.escalation_id } }));
    expect(again.code).toBe(-32003);
    const other = await refusal(
      client.callTool({
        name: 'pay',
        arguments: { amount: '76.00', payee: 'airline' },
        _meta: { 'oap/escalation_id': data.escalation_id },
      }),
    );
    expect(other.data).toMatchObject({ reason_code: 'escalation_mismatch' });
    await client.close();
  });

  it('writes neither the agent token nor the person access token to any log line', () => {
    expect(world.logLines.length).toBeGreaterThan(0);
    expect(world.logLines.filter((line) => line.includes(agentToken) || line.includes(personToken) || line.includes('ra_agent_'))).toEqual(
      [],
    );
  });

  it("lists, reads and deletes upstream servers; a deleted server's tools are neither listed nor callable", async () => {
    const auth = { authorization: `Bearer ${world.app.token}` };
    // A second registration of the upstream maps its `wipe` tool onto an action and scope the agent holds.
    const extra = await http('POST', `${world.url}/api/v1/mcp_servers`, {
      headers: auth,
      json: { name: 'quotes', url: upstream.url, tools: [{ name: 'wipe', action: 'quote', scope: 'payments:read' }] },
    });
    expect(extra.status).toBe(201);
    const first = await http('GET', `${world.url}/api/v1/mcp_servers?limit=1`, { headers: auth });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ data: [{ object: 'mcp_server', name: 'shop' }], has_more: true });
    const second = await http('GET', `${world.url}/api/v1/mcp_servers?limit=1&cursor=${first.body.next_cursor as string}`, {
      headers: auth,
    });
    expect(second.body).toMatchObject({ data: [{ id: extra.body.id, name: 'quotes' }], has_more: false, next_cursor: null });
    const read = await http('GET', `${world.url}/api/v1/mcp_servers/${extra.body.id as string}`, { headers: auth });
    expect(read.body).toMatchObject({ id: extra.body.id, tools: [{ name: 'wipe', action: 'quote', scope: 'payments:read', value: null }] });

    const client = await connect(agentToken);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['pay', 'quote', 'wipe']);
    await client.callTool({ name: 'wipe', arguments: {} });
    expect(upstream.calls.at(-1)).toEqual({ name: 'wipe', args: {} });
    const removed = await http('DELETE', `${world.url}/api/v1/mcp_servers/${extra.body.id as string}`, { headers: auth });
    expect(removed.status).toBe(204);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['pay', 'quote']);
    const before = upstream.calls.length;
    const gone = await refusal(client.callTool({ name: 'wipe', arguments: {} }));
    expect(gone.message).toContain('Unknown tool');
    expect(upstream.calls.length).toBe(before);
    await client.close();

    expect((await http('GET', `${world.url}/api/v1/mcp_servers/${extra.body.id as string}`, { headers: auth })).body).toMatchObject({
      reason_code: 'mcp_server_not_found',
    });
    expect((await http('DELETE', `${world.url}/api/v1/mcp_servers/${extra.body.id as string}`, { headers: auth })).status).toBe(404);
    expect((await http('GET', `${world.url}/api/v1/mcp_servers/not-a-uuid`, { headers: auth })).status).toBe(404);
    expect(
      (
        await http('GET', `${world.url}/api/v1/mcp_servers?cursor=${Buffer.from('{"created_at":"x","id":"y"}').toString('base64url')}`, {
          headers: auth,
        })
      ).body,
    ).toMatchObject({ reason_code: 'invalid_cursor' });
  });

  it('refuses the agent token with a proof of another key', async () => {
    const stranger = await agentKey();
    const error = await connect(agentToken, () => stranger).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(error)).toMatch(/401|invalid_token/);
  });
});
