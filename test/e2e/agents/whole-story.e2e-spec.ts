import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CAEP_TOKEN_CLAIMS_CHANGE } from '@svc/webhook-dispatcher';
import { http, waitFor } from '@svc/testing';
import { generateProof, type KeyPair } from 'dpop';
import { startSsfReceiver, type SsfReceiver } from '../support/ssf-receiver';
import {
  ACCESS_TOKEN_TYPE,
  JWT_TOKEN_TYPE,
  actorToken,
  agentKey,
  exchange,
  personAccessToken,
  startAgentWorld,
  type AgentWorld,
} from './support';
import { startUpstream, type Upstream } from './upstream';

/** The agent's fetch: `Authorization: DPoP <token>` and a fresh proof (the `dpop` package) on each request. */
const dpopFetch =
  (token: string, key: KeyPair) =>
  async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `DPoP ${token}`);
    headers.set('dpop', await generateProof(key, String(url), init?.method ?? 'GET', undefined, token));
    return fetch(url, { ...init, headers });
  };

async function refusal(call: Promise<unknown>): Promise<McpError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

/**
 * Issue 17, Done when: the whole agent story with real clients. A person signs in (openid-client);
 * the application registers an agent and proposes an authority, which the person grants on the
 * hosted page; the agent exchanges the person's access token for a DPoP-bound agent token (RFC
 * 8693, proofs by `dpop`); it lists and calls tools through the MCP gateway with the SDK's own
 * client against an upstream MCP server; it is denied above its bound, escalates, the person
 * approves on the hosted page, and the retried call passes; the person revokes the authority, after
 * which the next call fails and the application's Shared Signals receiver holds the signed event.
 */
describe('the whole agent story', () => {
  let world: AgentWorld;
  let upstream: Upstream;
  let receiver: SsfReceiver;

  beforeAll(async () => {
    world = await startAgentWorld('agents_story');
    upstream = await startUpstream();
    receiver = await startSsfReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await upstream?.close();
    await world?.close();
  });

  it('signs in, grants on the page, exchanges, calls tools, is denied, escalates, is approved, is revoked and the receiver hears it', async () => {
    world.clock.set(new Date().toISOString());
    const app = { authorization: `Bearer ${world.app.token}` };

    // The application listens for security events and registers its upstream MCP server.
    receiver.trust(world.url, world.app.id);
    const stream = await http('POST', `${world.url}/api/v1/ssf/streams`, {
      headers: app,
      json: { delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url }, events_requested: [CAEP_TOKEN_CLAIMS_CHANGE] },
    });
    expect(stream.status).toBe(201);
    const server = await http('POST', `${world.url}/api/v1/mcp_servers`, {
      headers: app,
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
    expect(server.status).toBe(201);

    // The application proposes; the signed-in person reads the bounds in plain words and grants.
    const proposed = await http('POST', `${world.url}/api/v1/authorities/proposals`, {
      headers: app,
      json: {
        agent_id: world.agentId,
        scope_bounds: { allowed: ['payments:*'] },
        action_bounds: { allowed: ['pay', 'quote'] },
        value_bounds: { currency: 'EUR', per_action: '50.00', aggregate: '200.00' },
        escalation_bounds: { amount_over: '20.00', quorum_type: 'all', approvers: [world.personId] },
        time_bounds: { unrestricted: true },
        reputation_bounds: { unrestricted: true },
        oap_sequence_bounds: { unrestricted: true },
        valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      },
    });
    expect(proposed.status).toBe(201);
    const authorityId = proposed.body.id as string;
    const page = String(proposed.body.proposal_url);
    const shown = await http('GET', page, { headers: { cookie: world.personCookie, 'accept-language': 'en' } });
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('may pay up to 50.00 EUR per action');
    expect(shown.text).toContain('asking you above 20.00 EUR');
    const granted = await http('POST', page, { headers: { cookie: world.personCookie, origin: world.url }, json: { answer: 'grant' } });
    expect(granted.body).toEqual({ status: 'active' });

    // The person signs in through openid-client; the agent exchanges that token for its own.
    const personToken = await personAccessToken(world);
    const key = await agentKey();
    const exchanged = await exchange(
      world,
      {
        subject_token: personToken,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: await actorToken(key, world.agentId, world.url),
        actor_token_type: JWT_TOKEN_TYPE,
        scope: 'payments:write payments:read',
      },
      await generateProof(key, `${world.url}/oauth/token/exchange`, 'POST'),
    );
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ token_type: 'DPoP', issued_token_type: ACCESS_TOKEN_TYPE });
    const agentToken = exchanged.body.access_token as string;
    expect(agentToken).toMatch(/^ra_agent_/);

    // The SDK's own MCP client, through the gateway.
    const client = new Client({ name: 'agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${world.url}/mcp/v1/agent`), { fetch: dpopFetch(agentToken, key) }));
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['pay', 'quote']);

    const paid = await client.callTool({ name: 'pay', arguments: { amount: '12.00', payee: 'bakery' } });
    expect(paid._meta?.['oap/receipt']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(upstream.calls.at(-1)).toEqual({ name: 'pay', args: { amount: '12.00', payee: 'bakery' } });

    const above = await refusal(client.callTool({ name: 'pay', arguments: { amount: '80.00', payee: 'jeweller' } }));
    expect(above.code).toBe(-32003);
    expect(above.data).toMatchObject({ decision: 'deny', cascade_step: 7 });

    const args = { amount: '30.00', payee: 'airline' };
    const escalated = await refusal(client.callTool({ name: 'pay', arguments: args }));
    expect(escalated.code).toBe(-32004);
    const { decision_url: decisionUrl, escalation_id: escalationId } = escalated.data as { decision_url: string; escalation_id: string };
    expect(decisionUrl.startsWith(`${world.url}/decisions/`)).toBe(true);

    // The person approves on the hosted page (the page drives the decision's state and transitions).
    const token = decisionUrl.slice(decisionUrl.lastIndexOf('/') + 1);
    expect((await http('GET', decisionUrl, { headers: { cookie: world.personCookie } })).status).toBe(200);
    await waitFor(async () => (await http('GET', `${world.url}/api/v1/decisions/${token}/state`)).status === 200, 15_000);
    const approved = await http('POST', `${world.url}/api/v1/decisions/${token}/transitions`, { json: { action: 'approve' } });
    expect(approved.status).toBe(200);

    const retried = await waitFor(async () => {
      try {
        return await client.callTool({ name: 'pay', arguments: args, _meta: { 'oap/escalation_id': escalationId } });
      } catch (error) {
        if (error instanceof McpError && error.code === -32004) return undefined;
        throw error;
      }
    }, 15_000);
    expect(retried._meta?.['oap/receipt']).toEqual(expect.any(String));
    expect(upstream.calls.at(-1)).toEqual({ name: 'pay', args });

    // The person withdraws the authority with their own access token; the next call fails.
    const revoked = await http('POST', `${world.url}/api/v1/authorities/${authorityId}/revoke`, {
      headers: { authorization: `Bearer ${personToken}` },
      json: { reason: 'no longer needed' },
    });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({ id: authorityId, status: 'revoked' });
    const before = upstream.calls.length;
    // Under a revoked authority the agent may call nothing: no tool is listed, and a call is refused before any upstream.
    const after = await refusal(client.callTool({ name: 'pay', arguments: { amount: '5.00', payee: 'bakery' } }));
    expect(after.message).toContain('Unknown tool');
    expect((await client.listTools()).tools).toEqual([]);
    expect(upstream.calls.length).toBe(before);
    await client.close();

    // The application's SSF receiver holds the signed token-claims-change of the authority.
    const set = await waitFor(
      () => receiver.sets.find((s) => (s.claims.sub_id as { id?: string } | undefined)?.id === authorityId),
      30_000,
    );
    expect(set.header).toMatchObject({ typ: 'secevent+jwt', alg: 'EdDSA' });
    expect(set.claims).toMatchObject({
      iss: world.url,
      aud: world.app.id,
      events: { [CAEP_TOKEN_CLAIMS_CHANGE]: { claims: { oap_authority_status: 'revoked', oap_agent_id: world.agentId } } },
    });
    expect(receiver.rejected).toEqual([]);
  });
});
