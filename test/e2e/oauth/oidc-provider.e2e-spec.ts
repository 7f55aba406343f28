import { createHash, webcrypto } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { CookieJar, signUp, startOAuthRegion, type OAuthRegion } from './support';

const REDIRECT = 'http://127.0.0.1:5555/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

/** Spec: Authentication rules 4–5, "OAuth and discovery"; openid-client as a real relying party. */
describe('OpenID provider', () => {
  let region: OAuthRegion;
  let app: { id: string; token: string };
  let confidential: { clientId: string; secret: string; config: oidc.Configuration };
  let personId: string;
  let personCookie: string;

  const auth = () => ({ authorization: `Bearer ${app.token}` });
  /** Every code, token and secret the tests saw: none may reach a log line. */
  const secrets: string[] = [];
  async function grantTokens(...args: Parameters<typeof oidc.authorizationCodeGrant>) {
    const tokens = await oidc.authorizationCodeGrant(...args);
    secrets.push(...[tokens.access_token, tokens.refresh_token, tokens.id_token].filter((t): t is string => typeof t === 'string'));
    return tokens;
  }

  async function registerClient(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await http('POST', `${region.url}/api/v1/applications/${app.id}/oauth_clients`, { headers: auth(), json: body });
    expect(res.status).toBe(201);
    return res.body;
  }

  /** Follows the provider's redirects as the person's browser until the client's redirect URI; consents when asked. */
  async function browse(start: string, jar: CookieJar): Promise<string> {
    let url = start;
    for (let hop = 0; hop < 12; hop++) {
      if (url.startsWith(REDIRECT)) return url;
      const res = await fetch(new URL(url, region.url), { redirect: 'manual', headers: { cookie: jar.header() } });
      jar.store(res);
      const location = res.headers.get('location');
      if (location) {
        url = location;
        continue;
      }
      const html = await res.text();
      const action = /<form method="post" action="([^"]+\/confirm)"/.exec(html)?.[1];
      if (res.status !== 200 || !action) throw new Error(`unexpected ${res.status} at ${new URL(url, region.url).pathname}`);
      const post = await fetch(new URL(action, region.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      jar.store(post);
      url = post.headers.get('location') ?? '';
    }
    throw new Error('too many redirects');
  }

  async function signedInJar(): Promise<CookieJar> {
    const jar = new CookieJar();
    jar.add(personCookie);
    return jar;
  }

  async function codeFlow(
    config: oidc.Configuration,
    scope = 'openid profile email offline_access',
    options: { DPoP?: oidc.DPoPHandle } = {},
  ) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = await oidc.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: REDIRECT,
        scope,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        prompt: 'consent',
      },
      options,
    );
    const jar = await signedInJar();
    const callback = await browse(url.href, jar);
    secrets.push(new URL(callback).searchParams.get('code') ?? '', verifier);
    return { callback: new URL(callback), verifier, state, jar };
  }

  beforeAll(async () => {
    region = await startOAuthRegion('oidc');
    const created = await region.stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'rp', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const person = await signUp(region, {
      email: 'ada@example.test',
      name: 'Ada Lovelace',
      locale: 'en-GB',
      timeZone: 'Europe/London',
      homeCountry: 'US',
    });
    personId = person.personId;
    personCookie = person.cookie;
    secrets.push(person.cookie.split('=')[1] ?? '');
    const body = await registerClient({
      name: 'Demo RP',
      redirect_uris: [REDIRECT],
      post_logout_redirect_uris: ['http://127.0.0.1:5555/bye'],
    });
    const clientId = body.client_id as string;
    const secret = body.client_secret as string;
    secrets.push(secret);
    confidential = {
      clientId,
      secret,
      config: await oidc.discovery(new URL(region.url), clientId, undefined, oidc.ClientSecretBasic(secret), insecure),
    };
  });
  afterAll(() => region?.close());

  describe('discovery', () => {
    it('publishes the region issuer, PAR required, S256 only, and the OAP versions', async () => {
      const res = await http('GET', `${region.url}/.well-known/openid-configuration`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        issuer: region.url,
        authorization_endpoint: `${region.url}/oauth/authorize`,
        token_endpoint: `${region.url}/oauth/token`,
        pushed_authorization_request_endpoint: `${region.url}/oauth/par`,
        require_pushed_authorization_requests: true,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        oap_protocol_versions_supported: ['1.0'],
      });
      expect(res.body.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256', 'EdDSA']));
      expect(res.body.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'profile', 'email', 'offline_access', 'audit:verify', 'disclosures:write']),
      );
    });

    it('serves the key store keys (RSA, P-256, Ed25519) in one kid family, public halves only', async () => {
      const res = await http<{ keys: Array<Record<string, unknown>> }>('GET', `${region.url}/oauth/jwks`);
      expect(res.status).toBe(200);
      expect(res.body.keys.map((k) => k.kid).sort()).toEqual(['oap-us-es256-v1', 'oap-us-rs256-v1', 'oap-us-v1']);
      for (const key of res.body.keys) expect(key).not.toHaveProperty('d');
    });
  });

  it('signs the person up through the people feature (email code from the SMTP sink)', () => {
    expect(personId).toMatch(/^usr_us_[a-z2-7]{20}$/);
  });

  describe('authorization code with PAR and PKCE', () => {
    it('signs the person in through the people port, with iss in the response, an RS256 ID token and userinfo', async () => {
      const { callback, verifier, state } = await codeFlow(confidential.config);
      expect(callback.searchParams.get('error_description') ?? '').toBe('');
      expect(callback.searchParams.get('iss')).toBe(region.url);
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state }).catch(
        (e: { error?: string; error_description?: string }) => {
          throw new Error(`${e.error}: ${e.error_description}`);
        },
      );
      const claims = tokens.claims();
      expect(claims).toMatchObject({ sub: personId, iss: region.url, aud: confidential.clientId, amr: ['otp'] });
      expect(claims?.auth_time).toBeGreaterThan(0);
      expect(JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString())).toMatchObject({
        alg: 'RS256',
        kid: 'oap-us-rs256-v1',
      });
      expect(tokens.refresh_token).toEqual(expect.any(String));
      const info = await oidc.fetchUserInfo(confidential.config, tokens.access_token, personId);
      expect(info).toMatchObject({
        sub: personId,
        name: 'Ada Lovelace',
        email: 'ada@example.test',
        email_verified: true,
        zoneinfo: 'Europe/London',
      });
    });

    it('sends a browser without a signed-in person to the people sign-in page, returning to the interaction', async () => {
      const config = confidential.config;
      const verifier = oidc.randomPKCECodeVerifier();
      const url = await oidc.buildAuthorizationUrlWithPAR(config, {
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const jar = new CookieJar();
      const first = await fetch(url, { redirect: 'manual' });
      jar.store(first);
      const interaction = first.headers.get('location') ?? '';
      expect(interaction).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
      const login = await fetch(new URL(interaction, region.url), { redirect: 'manual', headers: { cookie: jar.header() } });
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe(`/people/sign-in?return_to=${encodeURIComponent(interaction)}`);
    });

    it('redeems a code once: 10 concurrent redemptions give exactly 1 token set, and its tokens are revoked', async () => {
      const { callback, verifier } = await codeFlow(confidential.config, 'openid');
      const code = callback.searchParams.get('code') ?? '';
      const basic = `Basic ${Buffer.from(`${confidential.clientId}:${confidential.secret}`).toString('base64')}`;
      const redeem = () =>
        fetch(`${region.url}/oauth/token`, {
          method: 'POST',
          headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));
      const answers = await Promise.all(Array.from({ length: 10 }, redeem));
      const won = answers.filter((a) => a.status === 200);
      expect(won).toHaveLength(1);
      expect(answers.filter((a) => a.status === 400).every((a) => a.body.error === 'invalid_grant')).toBe(true);
      const introspection = await fetch(`${region.url}/oauth/introspect`, {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: won[0]!.body.access_token! }),
      });
      expect(await introspection.json()).toEqual({ active: false });
    });

    it('refuses authorize without PAR', async () => {
      const query = new URLSearchParams({
        client_id: confidential.clientId,
        response_type: 'code',
        redirect_uri: REDIRECT,
        scope: 'openid',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      const res = await fetch(`${region.url}/oauth/authorize?${query}`, { redirect: 'manual' });
      const location = res.headers.get('location') ?? '';
      expect(location.includes('code=')).toBe(false);
      expect(res.status === 400 || /error=invalid_request/.test(location)).toBe(true);
    });

    async function par(fields: Record<string, string>, clientId = confidential.clientId, secret = confidential.secret) {
      const res = await fetch(`${region.url}/oauth/par`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          ...fields,
        }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    }

    it('refuses plain PKCE and a redirect URI off by one character', async () => {
      expect((await par({ code_challenge_method: 'plain', code_challenge: 'x'.repeat(43) })).body.error).toBe('invalid_request');
      const offByOne = await par({ redirect_uri: `${REDIRECT}x` });
      expect(offByOne.status).toBe(400);
      expect(`${offByOne.body.error}: ${offByOne.body.error_description}`).toMatch(/^invalid_(redirect_uri|request): .*redirect_uri/);
      const offByOneShorter = await par({ redirect_uri: REDIRECT.slice(0, -1) });
      expect(`${offByOneShorter.body.error}: ${offByOneShorter.body.error_description}`).toMatch(
        /^invalid_(redirect_uri|request): .*redirect_uri/,
      );
    });

    it('refuses an expired request_uri and the request_uri of another client', async () => {
      const other = await registerClient({ name: 'Other RP', redirect_uris: [REDIRECT] });
      const pushed = await par({});
      expect(pushed.status).toBe(201);
      const foreign = await fetch(
        `${region.url}/oauth/authorize?${new URLSearchParams({ client_id: other.client_id as string, request_uri: pushed.body.request_uri! })}`,
        { redirect: 'manual' },
      );
      expect(foreign.headers.get('location') ?? '').not.toMatch(/^\/oauth\/interaction\//);
      expect(foreign.status === 400 || /error=/.test(foreign.headers.get('location') ?? '')).toBe(true);

      const expiring = await par({});
      await region.stack.process.us.app
        .get(DataSource)
        .query(`UPDATE gateway.oauth_models SET expires_at = now() - interval '1 second' WHERE model = 'PushedAuthorizationRequest'`);
      const expired = await fetch(
        `${region.url}/oauth/authorize?${new URLSearchParams({ client_id: confidential.clientId, request_uri: expiring.body.request_uri! })}`,
        { redirect: 'manual' },
      );
      expect(expired.headers.get('location') ?? '').not.toMatch(/^\/oauth\/interaction\//);
      expect(expired.status === 400 || /error=invalid_request_uri/.test(expired.headers.get('location') ?? '')).toBe(true);
    });

    it('accepts the pushed request at /oauth2/par too', async () => {
      const verifier = oidc.randomPKCECodeVerifier();
      const res = await fetch(`${region.url}/oauth2/par`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${confidential.clientId}:${confidential.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          response_type: 'code',
          client_id: confidential.clientId,
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }),
      });
      expect(res.status).toBe(201);
      expect(await res.json()).toMatchObject({
        request_uri: expect.stringMatching(/^urn:ietf:params:oauth:request_uri:/),
        expires_in: expect.any(Number),
      });
    });
  });
  describe('client authentication and ID token algorithms', () => {
    async function verifiedIdToken(idToken: string) {
      const jwks = (await http<JSONWebKeySet>('GET', `${region.url}/oauth/jwks`)).body;
      return jwtVerify(idToken, createLocalJWKSet(jwks), { issuer: region.url });
    }

    it('authenticates a private_key_jwt client with its registered key', async () => {
      const keyPair = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const publicJwk = { ...(await webcrypto.subtle.exportKey('jwk', keyPair.publicKey)), kid: 'rp-key-1', alg: 'ES256', use: 'sig' };
      const body = await registerClient({
        name: 'JWT RP',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [publicJwk] },
      });
      expect(body).not.toHaveProperty('client_secret');
      expect(body.jwks).toEqual({ keys: [publicJwk] });
      const config = await oidc.discovery(
        new URL(region.url),
        body.client_id as string,
        undefined,
        oidc.PrivateKeyJwt({ key: keyPair.privateKey, kid: 'rp-key-1' }),
        insecure,
      );
      const { callback, verifier, state } = await codeFlow(config, 'openid');
      const tokens = await grantTokens(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      expect(tokens.claims()?.sub).toBe(personId);
      // Another key than the registered one is refused at the token endpoint.
      const stranger = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
        'sign',
        'verify',
      ])) as webcrypto.CryptoKeyPair;
      const impostor = await oidc.discovery(
        new URL(region.url),
        body.client_id as string,
        undefined,
        oidc.PrivateKeyJwt({ key: stranger.privateKey, kid: 'rp-key-1' }),
        insecure,
      );
      await expect(
        oidc.buildAuthorizationUrlWithPAR(impostor, {
          redirect_uri: REDIRECT,
          scope: 'openid',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        }),
      ).rejects.toThrow();
    });

    it.each([
      ['ES256', 'oap-us-es256-v1'],
      ['EdDSA', 'oap-us-v1'],
    ])('signs the ID token of a client registered for %s with %s, verifiable with the JWKS', async (alg, kid) => {
      const body = await registerClient({ name: `${alg} RP`, redirect_uris: [REDIRECT], id_token_signed_response_alg: alg });
      const config = await oidc.discovery(
        new URL(region.url),
        body.client_id as string,
        { id_token_signed_response_alg: alg },
        oidc.ClientSecretBasic(body.client_secret as string),
        insecure,
      );
      const { callback, verifier, state } = await codeFlow(config, 'openid');
      const tokens = await grantTokens(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const verified = await verifiedIdToken(tokens.id_token!);
      expect(verified.protectedHeader).toMatchObject({ alg, kid });
      expect(verified.payload.sub).toBe(personId);
    });

    it('signs RS256 ID tokens by default, verifiable with the JWKS', async () => {
      const { callback, verifier, state } = await codeFlow(confidential.config, 'openid');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      expect((await verifiedIdToken(tokens.id_token!)).protectedHeader).toMatchObject({ alg: 'RS256', kid: 'oap-us-rs256-v1' });
    });
  });

  describe('refresh tokens (rotation)', () => {
    async function tokensWithRefresh() {
      const { callback, verifier, state } = await codeFlow(confidential.config);
      return oidc.authorizationCodeGrant(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    }
    const refresh = (token: string) =>
      fetch(`${region.url}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${confidential.clientId}:${confidential.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));

    it('rotates on every use through openid-client', async () => {
      const first = await tokensWithRefresh();
      const second = await oidc.refreshTokenGrant(confidential.config, first.refresh_token!);
      expect(second.refresh_token).toEqual(expect.any(String));
      expect(second.refresh_token).not.toBe(first.refresh_token);
    });

    it('gives exactly one success to a concurrent double refresh', async () => {
      const first = await tokensWithRefresh();
      const answers = await Promise.all([refresh(first.refresh_token!), refresh(first.refresh_token!)]);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 400).map((a) => a.body.error)).toEqual(['invalid_grant']);
    });

    it('revokes the whole family when a rotated token is used again', async () => {
      const first = await tokensWithRefresh();
      const rotated = await refresh(first.refresh_token!);
      expect(rotated.status).toBe(200);
      const reuse = await refresh(first.refresh_token!);
      expect(reuse.body.error).toBe('invalid_grant');
      expect((await refresh(rotated.body.refresh_token!)).body.error).toBe('invalid_grant');
    });
  });
  describe('public clients with DPoP-bound tokens (RFC 9449)', () => {
    it('binds the tokens to the DPoP key on token, userinfo, refresh, introspection and revocation', async () => {
      const spa = await registerClient({ name: 'SPA', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
      expect(spa).not.toHaveProperty('client_secret');
      const config = await oidc.discovery(new URL(region.url), spa.client_id as string, undefined, oidc.None(), insecure);
      const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
      const { callback, verifier, state } = await codeFlow(config, 'openid profile offline_access', { DPoP: dpop });
      const tokens = await grantTokens(config, callback, { pkceCodeVerifier: verifier, expectedState: state }, undefined, { DPoP: dpop });
      expect(tokens.token_type.toLowerCase()).toBe('dpop');
      expect(await oidc.fetchUserInfo(config, tokens.access_token, personId, { DPoP: dpop })).toMatchObject({
        sub: personId,
        name: 'Ada Lovelace',
      });

      // Without a proof the bound token is refused, as a DPoP or a Bearer token.
      for (const scheme of ['DPoP', 'Bearer']) {
        const bare = await fetch(`${region.url}/oauth/userinfo`, { headers: { authorization: `${scheme} ${tokens.access_token}` } });
        expect([400, 401]).toContain(bare.status);
        expect(bare.headers.get('www-authenticate') ?? '').toMatch(/error="invalid_(token|request)"/);
      }
      // A refresh without the key's proof fails; with it, the new tokens stay bound.
      const unbound = await fetch(`${region.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: spa.client_id as string,
        }),
      });
      expect(unbound.status).toBe(400);
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, undefined, { DPoP: dpop });
      expect(refreshed.token_type.toLowerCase()).toBe('dpop');

      const introspected = await oidc.tokenIntrospection(config, refreshed.access_token);
      expect(introspected).toMatchObject({
        active: true,
        client_id: spa.client_id,
        sub: personId,
        token_type: 'DPoP',
        cnf: { jkt: expect.any(String) },
      });
      // Another application's client cannot introspect it.
      expect(await oidc.tokenIntrospection(confidential.config, refreshed.access_token)).toEqual({ active: false });

      await oidc.tokenRevocation(config, refreshed.access_token);
      await expect(oidc.fetchUserInfo(config, refreshed.access_token, personId, { DPoP: dpop })).rejects.toThrow();
    });
  });

  describe('RP-initiated logout', () => {
    it('ends the session after the confirmation and returns to the registered post-logout URI', async () => {
      const { callback, verifier, state, jar } = await codeFlow(confidential.config, 'openid');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const endSession = oidc.buildEndSessionUrl(confidential.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: 'http://127.0.0.1:5555/bye',
        state: 'bye-state',
      });
      const pageRes = await fetch(endSession, { headers: { cookie: jar.header() }, redirect: 'manual' });
      jar.store(pageRes);
      expect(pageRes.status).toBe(200);
      const html = await pageRes.text();
      const action = /id="op.logoutForm" method="post" action="([^"]+)"/.exec(html)?.[1] ?? '';
      const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      const confirm = await fetch(new URL(action, region.url), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ xsrf, logout: 'yes' }),
      });
      expect(confirm.status).toBe(303);
      expect(confirm.headers.get('location')).toBe('http://127.0.0.1:5555/bye?state=bye-state');
    });

    it('refuses a post-logout URI that was not registered', async () => {
      const { callback, verifier, state } = await codeFlow(confidential.config, 'openid');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const endSession = oidc.buildEndSessionUrl(confidential.config, {
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: 'http://127.0.0.1:5555/byex',
      });
      const res = await fetch(endSession, { redirect: 'manual' });
      expect(res.status).toBe(400);
    });
  });

  describe('OAuth clients under an application', () => {
    it('lists, reads and deletes clients; the secret appears only at registration', async () => {
      const created = await registerClient({
        name: 'Listed',
        redirect_uris: ['https://rp.example.com/cb'],
        id_token_signed_response_alg: 'EdDSA',
        scopes: ['openid', 'email'],
      });
      expect(created).toMatchObject({
        object: 'oauth_client',
        application_id: app.id,
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'EdDSA',
        scopes: ['openid', 'email'],
      });
      const got = await http('GET', `${region.url}/api/v1/applications/${app.id}/oauth_clients/${created.client_id as string}`, {
        headers: auth(),
      });
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty('client_secret');
      const list = await http<{ data: Array<Record<string, unknown>> }>(
        'GET',
        `${region.url}/api/v1/applications/${app.id}/oauth_clients?limit=200`,
        { headers: auth() },
      );
      expect(list.body.data.map((c) => c.client_id)).toContain(created.client_id);
      expect(list.body.data.some((c) => 'client_secret' in c)).toBe(false);
      expect(
        (
          await http('DELETE', `${region.url}/api/v1/applications/${app.id}/oauth_clients/${created.client_id as string}`, {
            headers: auth(),
          })
        ).status,
      ).toBe(204);
      expect(
        (await http('GET', `${region.url}/api/v1/applications/${app.id}/oauth_clients/${created.client_id as string}`, { headers: auth() }))
          .status,
      ).toBe(404);
    });

    it.each([
      [{ name: 'x', redirect_uris: ['http://rp.example.com/cb'] }, 'redirect_uris[0]'],
      [{ name: 'x', redirect_uris: ['https://rp.example.com/cb#frag'] }, 'redirect_uris[0]'],
      [{ name: 'x', redirect_uris: ['not a url'] }, 'redirect_uris[0]'],
      [{ name: 'x', redirect_uris: ['https://rp.example.com/cb'], token_endpoint_auth_method: 'private_key_jwt' }, 'jwks'],
      [{ name: 'x', redirect_uris: ['https://rp.example.com/cb'], scopes: ['email'] }, 'scopes'],
    ])('refuses %j with 422 naming %s', async (body, field) => {
      const res = await http('POST', `${region.url}/api/v1/applications/${app.id}/oauth_clients`, { headers: auth(), json: body });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: 'oauth_client_invalid', detail: { field } });
    });

    it('deleting a client revokes the tokens it holds', async () => {
      const doomed = await registerClient({ name: 'Doomed', redirect_uris: [REDIRECT] });
      const config = await oidc.discovery(
        new URL(region.url),
        doomed.client_id as string,
        undefined,
        oidc.ClientSecretBasic(doomed.client_secret as string),
        insecure,
      );
      const { callback, verifier, state } = await codeFlow(config, 'openid');
      const tokens = await grantTokens(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      await http('DELETE', `${region.url}/api/v1/applications/${app.id}/oauth_clients/${doomed.client_id as string}`, { headers: auth() });
      const info = await fetch(`${region.url}/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(info.status).toBe(401);
    });
  });

  describe('GET /api/v1/me', () => {
    it("answers for a person's access token: the person, their home country, linked applications and the client's application", async () => {
      const link = await http('POST', `${region.url}/api/v1/applications/${app.id}/person_links`, {
        headers: auth(),
        json: { person_id: personId, subject: { external_id: 'crm-ada-1' } },
      });
      expect(link.status).toBe(201);
      const { callback, verifier, state } = await codeFlow(confidential.config, 'openid profile email');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      const res = await http('GET', `${region.url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'identity',
        credential: { type: 'access_token', id: confidential.clientId, scopes: ['openid', 'profile', 'email'] },
        application: { id: app.id },
        region: 'us',
        person: {
          id: personId,
          display_name: 'Ada Lovelace',
          email: 'ada@example.test',
          locale: 'en-GB',
          time_zone: 'Europe/London',
          home_country: 'US',
        },
        home_country: 'US',
        linked_applications: [
          { application_id: app.id, name: 'rp', linked_at: (link.body.person_link as { created_at: string }).created_at },
        ],
      });
    });

    it('keeps answering for an API token, and refuses a revoked access token', async () => {
      const api = await http('GET', `${region.url}/api/v1/me`, { headers: auth() });
      expect(api.status).toBe(200);
      expect(api.body).toMatchObject({ credential: { type: 'api_token' }, application: { id: app.id } });
      expect(api.body).not.toHaveProperty('person');
      expect(api.body).not.toHaveProperty('linked_applications');

      const { callback, verifier, state } = await codeFlow(confidential.config, 'openid');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      await oidc.tokenRevocation(confidential.config, tokens.access_token);
      const revoked = await http('GET', `${region.url}/api/v1/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect(revoked.status).toBe(401);
      expect(revoked.body.reason_code).toBe('invalid_token');
    });
  });

  describe('device authorization grant (RFC 8628)', () => {
    let device: { clientId: string; secret: string; config: oidc.Configuration };
    const poll = (deviceCode: string) =>
      fetch(`${region.url}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${device.clientId}:${device.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode }),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, string> }));

    async function devicePage(jar: CookieJar, method: 'GET' | 'POST', path: string, form?: Record<string, string>) {
      const res = await fetch(new URL(path, region.url), {
        method,
        redirect: 'manual',
        headers: { cookie: jar.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form) } : {}),
      });
      jar.store(res);
      return { status: res.status, location: res.headers.get('location'), html: await res.text() };
    }
    const xsrfOf = (html: string) => /name="xsrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

    beforeAll(async () => {
      const body = await registerClient({
        name: 'TV app',
        redirect_uris: [REDIRECT],
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
      });
      device = {
        clientId: body.client_id as string,
        secret: body.client_secret as string,
        config: await oidc.discovery(
          new URL(region.url),
          body.client_id as string,
          undefined,
          oidc.ClientSecretBasic(body.client_secret as string),
          insecure,
        ),
      };
    });

    it('connects a device through the hosted user-code page; a device polling too fast hears slow_down', async () => {
      const started = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid profile' });
      secrets.push(started.device_code, started.user_code);
      expect(started.verification_uri).toBe(`${region.url}/oauth/device`);
      expect((await poll(started.device_code)).body.error).toBe('authorization_pending');
      expect((await poll(started.device_code)).body.error).toBe('slow_down');

      const jar = await signedInJar();
      const input = await devicePage(jar, 'GET', '/oauth/device');
      expect(input.status).toBe(200);
      expect(input.html).toContain('<label for="svc-user-code">');
      const confirmPage = await devicePage(jar, 'POST', '/oauth/device', { xsrf: xsrfOf(input.html), user_code: started.user_code });
      expect(confirmPage.status).toBe(200);
      let step = await devicePage(jar, 'POST', '/oauth/device', {
        xsrf: xsrfOf(confirmPage.html),
        user_code: started.user_code,
        confirm: 'yes',
      });
      for (let hop = 0; hop < 10 && step.status !== 200; hop++) step = await devicePage(jar, 'GET', step.location ?? '');
      const consent = /<form method="post" action="([^"]+\/confirm)"/.exec(step.html)?.[1];
      expect(consent).toBeDefined();
      step = await devicePage(jar, 'POST', consent!, {});
      for (let hop = 0; hop < 10 && step.status !== 200; hop++) step = await devicePage(jar, 'GET', step.location ?? '');
      expect(step.html).toContain('Your device is connected');

      await new Promise((resolve) => setTimeout(resolve, 10_500));
      const granted = await poll(started.device_code);
      expect(granted.status).toBe(200);
      expect(granted.body).toMatchObject({ token_type: 'Bearer', id_token: expect.any(String), access_token: expect.any(String) });
    }, 30_000);

    it('answers expired_token for a device code past its lifetime', async () => {
      const started = await oidc.initiateDeviceAuthorization(device.config, { scope: 'openid' });
      await region.stack.process.us.app.get(DataSource).query(
        `UPDATE gateway.oauth_models SET expires_at = now() - interval '1 second', payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch from now())::int - 1))
          WHERE model = 'DeviceCode' AND payload->>'userCode' = $1`,
        [started.user_code.replace(/-/g, '')],
      );
      expect((await poll(started.device_code)).body.error).toBe('expired_token');
    });

    it('refuses the user-code page after 5 wrong codes from one address', async () => {
      const jar = await signedInJar();
      let form = await devicePage(jar, 'GET', '/oauth/device');
      for (let attempt = 1; attempt <= 5; attempt++) {
        form = await devicePage(jar, 'POST', '/oauth/device', { xsrf: xsrfOf(form.html), user_code: 'BCDF-GHJK' });
        expect(form.status).toBe(200);
        expect(form.html).toContain('That code is not valid');
      }
      const locked = await devicePage(jar, 'POST', '/oauth/device', { xsrf: xsrfOf(form.html), user_code: 'BCDF-GHJK' });
      expect(locked.status).toBe(429);
      expect((await devicePage(jar, 'GET', '/oauth/device')).status).toBe(429);
    });
  });

  describe('token audit entries', () => {
    it('records an issued and a revoked token in the audit chain by digest prefix, never the token', async () => {
      const { callback, verifier, state } = await codeFlow(confidential.config, 'openid offline_access');
      const tokens = await grantTokens(confidential.config, callback, { pkceCodeVerifier: verifier, expectedState: state });
      await oidc.tokenRevocation(confidential.config, tokens.access_token);
      const digest = createHash('sha256').update(tokens.access_token).digest('hex').slice(0, 16);
      const db = region.stack.process.us.app.get(DataSource);
      const entriesOf = async (type: string): Promise<string[]> =>
        ((await db.query(`SELECT canonical FROM audit.entries WHERE entry_type = $1`, [type])) as Array<{ canonical: string }>)
          .map((r) => r.canonical)
          .filter((c) => c.includes(digest));
      const [issued, revoked] = await waitFor(async () => {
        const found = [await entriesOf('oauth.token_issued'), await entriesOf('oauth.token_revoked')];
        return found.every((rows) => rows.length === 1) ? found : undefined;
      });
      for (const entry of [issued![0]!, revoked![0]!]) {
        expect(entry).toContain(confidential.clientId);
        expect(entry).toContain(personId);
        expect(entry).toContain('access_token');
        for (const token of [tokens.access_token, tokens.refresh_token, tokens.id_token]) expect(entry.includes(token!)).toBe(false);
      }
      const all = (await db.query(`SELECT canonical FROM audit.entries WHERE entry_type LIKE 'oauth.%'`)) as Array<{ canonical: string }>;
      expect(all.some((r) => r.canonical.includes('refresh_token'))).toBe(true);
      for (const row of all) for (const value of secrets.filter((v) => v.length >= 8)) expect(row.canonical.includes(value)).toBe(false);
    });
  });

  it('writes no code, token or client secret to any log line', () => {
    expect(region.logLines.length).toBeGreaterThan(0);
    const values = secrets.filter((value) => value.length >= 8);
    expect(values.length).toBeGreaterThan(20);
    for (const line of region.logLines) {
      for (const value of values) expect(line.includes(value)).toBe(false);
    }
  });
});
