import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { generateKeyPair, type KeyPair } from 'dpop';
import { SignJWT, exportJWK } from 'jose';
import * as oidc from 'openid-client';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { createLogger } from '@svc/telemetry';
import { CookieJar, signUp } from '../oauth/support';
import { startMailDev, type MailDev } from '../support/mail';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

export const REDIRECT = 'http://127.0.0.1:5555/callback';
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
const insecure = { execute: [oidc.allowInsecureRequests] };

/** One region with a signed-up person, an application, its OAuth client and an agent. */
export interface AgentWorld {
  url: string;
  stack: TestRegions;
  mail: MailDev;
  clock: FakeClock;
  app: { id: string; token: string };
  client: { clientId: string; secret: string; config: oidc.Configuration };
  personId: string;
  personCookie: string;
  agentId: string;
  /** Every log line the region wrote (debug and up). */
  logLines: string[];
  close(): Promise<void>;
}

/** Boots the us region on a clock set to now (the `dpop` client signs with the real time). */
export async function startAgentWorld(label: string): Promise<AgentWorld> {
  const clock = new FakeClock(new Date().toISOString());
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line.length > 0),
      );
      done();
    },
  });
  const mail = await startMailDev();
  const logger = createLogger({ service: 'e2e-agents', region: 'us', level: 'debug', destination });
  const stack = await startRegions(label, {
    clock,
    regions: ['us'],
    logger,
    env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
  });
  const url = stack.url.us;
  const created = await stack.process.us.app
    .get(CreateApplication)
    .execute(CreateApplicationCommand.create({ name: 'agents', environment: 'development' }));
  const app = { id: created.application.id, token: created.apiToken };
  const person = await signUp(
    { url, stack, mail, logLines: [], close: async () => undefined },
    { email: 'grace@example.test', name: 'Grace Hopper', locale: 'en-US', timeZone: 'America/New_York', homeCountry: 'US' },
  );
  const registered = await http('POST', `${url}/api/v1/applications/${app.id}/oauth_clients`, {
    headers: { authorization: `Bearer ${app.token}` },
    json: { name: 'Agent host', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE] },
  });
  if (registered.status !== 201) throw new Error(`client registration answered ${registered.status}`);
  const clientId = registered.body.client_id as string;
  const secret = registered.body.client_secret as string;
  const config = await oidc.discovery(new URL(url), clientId, undefined, oidc.ClientSecretBasic(secret), insecure);
  const agent = await http('POST', `${url}/api/v1/agents`, {
    headers: { authorization: `Bearer ${app.token}` },
    json: { name: 'assistant' },
  });
  if (agent.status !== 201) throw new Error(`agent registration answered ${agent.status}`);
  return {
    url,
    stack,
    mail,
    clock,
    app,
    client: { clientId, secret, config },
    personId: person.personId,
    personCookie: person.cookie,
    agentId: agent.body.id as string,
    logLines,
    close: async () => {
      await stack.close();
      await mail.stop();
    },
  };
}

/** The person's authority for the agent (what the person grants on the hosted page). */
export async function grantAuthority(world: AgentWorld, bounds: Record<string, unknown>): Promise<string> {
  const res = await http('POST', `${world.url}/api/v1/authorities`, {
    headers: { authorization: `Bearer ${world.app.token}` },
    json: {
      agent_id: world.agentId,
      principal_id: world.personId,
      valid_until: new Date(Date.now() + 30 * 86_400_000).toISOString(),
      ...bounds,
    },
  });
  if (res.status !== 201) throw new Error(`authority answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** The person signs in with the authorization code flow (PAR, PKCE) through openid-client; the access token. */
export async function personAccessToken(world: AgentWorld): Promise<string> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = await oidc.buildAuthorizationUrlWithPAR(world.client.config, {
    redirect_uri: REDIRECT,
    scope: 'openid profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    prompt: 'consent',
  });
  const jar = new CookieJar();
  jar.add(world.personCookie);
  let next = url.href;
  for (let hop = 0; hop < 12 && !next.startsWith(REDIRECT); hop++) {
    const res = await fetch(new URL(next, world.url), { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.store(res);
    const location = res.headers.get('location');
    if (location) {
      next = location;
      continue;
    }
    const action = /<form method="post" action="([^"]+\/confirm)"/.exec(await res.text())?.[1];
    if (!action) throw new Error(`unexpected ${res.status} during sign-in`);
    const post = await fetch(new URL(action, world.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    jar.store(post);
    next = post.headers.get('location') ?? '';
  }
  const tokens = await oidc.authorizationCodeGrant(world.client.config, new URL(next), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  return tokens.access_token;
}

/** The agent's key: DPoP proofs and actor tokens are signed with it. */
export async function agentKey(): Promise<KeyPair> {
  return generateKeyPair('ES256');
}

/** The agent's actor token: a short JWT it signs with its DPoP key, `sub` its agent id, `aud` the issuer. */
export async function actorToken(key: KeyPair, agentId: string, issuer: string): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', jwk: await exportJWK(key.publicKey) })
    .setSubject(agentId)
    .setAudience(issuer)
    .setIssuedAt()
    .setExpirationTime('2m')
    .setJti(randomUUID())
    .sign(key.privateKey);
}

/** POSTs an RFC 8693 exchange with client_secret_basic and the given DPoP proof. */
export async function exchange(
  world: AgentWorld,
  form: Record<string, string>,
  dpop: string,
  path = '/oauth/token/exchange',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${world.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${encodeURIComponent(world.client.clientId)}:${encodeURIComponent(world.client.secret)}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      dpop,
    },
    body: new URLSearchParams({ grant_type: TOKEN_EXCHANGE, ...form }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
