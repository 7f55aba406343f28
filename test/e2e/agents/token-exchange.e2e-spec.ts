import { generateProof } from 'dpop';
import * as oidc from 'openid-client';
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

/** Spec: Authentication rules 6–7, `/oauth/token/exchange` (RFC 8693), agent tokens DPoP-bound. */
describe('token exchange: a person access token for a DPoP-bound agent token', () => {
  let world: AgentWorld;

  beforeAll(async () => {
    world = await startAgentWorld('agents_exchange');
    await grantAuthority(world, {
      scope_bounds: { allowed: ['payments:*', 'calendar:read'] },
      action_bounds: { allowed: ['pay', 'quote'] },
      time_bounds: { unrestricted: true },
      reputation_bounds: { unrestricted: true },
      oap_sequence_bounds: { unrestricted: true },
    });
  });
  afterAll(() => world?.close());
  beforeEach(() => world.clock.set(new Date().toISOString()));

  async function exchangeFor(
    scope: string,
    options: {
      subject?: string;
      signer?: Awaited<ReturnType<typeof agentKey>>;
      prover?: Awaited<ReturnType<typeof agentKey>>;
      path?: string;
    } = {},
  ) {
    const signer = options.signer ?? (await agentKey());
    const prover = options.prover ?? signer;
    const subject = options.subject ?? (await personAccessToken(world));
    const path = options.path ?? '/oauth/token/exchange';
    return exchange(
      world,
      {
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: await actorToken(signer, world.agentId, world.url),
        actor_token_type: JWT_TOKEN_TYPE,
        scope,
      },
      await generateProof(prover, `${world.url}${path}`, 'POST'),
      path,
    );
  }

  it('issues an ra_agent_ token, DPoP type, with the requested scope inside the authority and an expiry within the subject', async () => {
    const res = await exchangeFor('payments:write calendar:read');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      access_token: expect.stringMatching(/^ra_agent_[A-Za-z0-9_-]{43}$/),
      token_type: 'DPoP',
      issued_token_type: ACCESS_TOKEN_TYPE,
      scope: 'calendar:read payments:write',
    });
    expect(res.body.expires_in).toBeGreaterThan(0);
    expect(res.body.expires_in).toBeLessThanOrEqual(600);
    expect(res.body.act).toEqual({ sub: world.agentId });
  });

  it('serves the same grant at the provider token endpoint, announced in discovery', async () => {
    const discovery = (await (await fetch(`${world.url}/.well-known/openid-configuration`)).json()) as { grant_types_supported: string[] };
    expect(discovery.grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:token-exchange');
    const res = await exchangeFor('payments:write', { path: '/oauth/token' });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toMatch(/^ra_agent_/);
  });

  it('refuses a scope escalation: a scope the authority does not allow, or a wildcard', async () => {
    for (const scope of ['files:read', 'payments:write files:read', 'payments:*']) {
      const res = await exchangeFor(scope);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_scope');
    }
  });

  it('refuses an actor token signed with another key than the DPoP proof', async () => {
    const res = await exchangeFor('payments:write', { signer: await agentKey(), prover: await agentKey() });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses a DPoP proof made for another URL', async () => {
    const key = await agentKey();
    const res = await exchange(
      world,
      {
        subject_token: await personAccessToken(world),
        subject_token_type: ACCESS_TOKEN_TYPE,
        actor_token: await actorToken(key, world.agentId, world.url),
        actor_token_type: JWT_TOKEN_TYPE,
        scope: 'payments:write',
      },
      await generateProof(key, `${world.url}/api/v1/grants`, 'POST'),
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_dpop_proof');
  });

  it('refuses a revoked subject token', async () => {
    const subject = await personAccessToken(world);
    await oidc.tokenRevocation(world.client.config, subject, { token_type_hint: 'access_token' });
    const res = await exchangeFor('payments:write', { subject });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses an expired subject token', async () => {
    const subject = await personAccessToken(world);
    world.clock.set(new Date(Date.now() + 601_000).toISOString());
    const res = await exchangeFor('payments:write', { subject });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses an unknown subject token and an unknown subject token type', async () => {
    const unknown = await exchangeFor('payments:write', { subject: 'A'.repeat(43) });
    expect(unknown.body.error).toBe('invalid_grant');
    const key = await agentKey();
    const wrongType = await exchange(
      world,
      {
        subject_token: 'dlg_us_unknown',
        subject_token_type: 'urn:example:unknown',
        actor_token: await actorToken(key, world.agentId, world.url),
        actor_token_type: JWT_TOKEN_TYPE,
      },
      await generateProof(key, `${world.url}/oauth/token/exchange`, 'POST'),
    );
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toBe('invalid_request');
  });

  it('answers only the exchange grant at /oauth/token/exchange', async () => {
    const res = await exchange(world, { grant_type: 'refresh_token', refresh_token: 'x' }, 'x');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_grant_type');
  });
});
