import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { startRegions, type TestRegions } from './support/regions';

/** Spec: Application, Authentication rules 1–3 and 11, Errors; issue: Connect basics. */
describe('Connect basics through the us router', () => {
  let stack: TestRegions;
  let us: string;
  let dev: { id: string; token: string; publishableKey: string };
  let prod: { id: string; token: string };
  let other: { id: string; token: string };

  async function createApp(environment: 'development' | 'production', name = 'demo') {
    const created = await stack.process.us.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment }));
    return { id: created.application.id, token: created.apiToken, publishableKey: created.publishableKey };
  }
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    stack = await startRegions('connect', { regions: ['us', 'eu'] });
    us = stack.url.us;
    dev = await createApp('development');
    prod = await createApp('production');
    other = await createApp('development', 'other');
  });
  afterAll(() => stack?.close());

  describe('GET /api/v1/me', () => {
    it('answers 200 with the identity of the API token and its application', async () => {
      const res = await http('GET', `${us}/api/v1/me`, { headers: auth(dev.token) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'identity',
        credential: { type: 'api_token', scopes: ['audit:verify', 'disclosures:write'] },
        application: { id: dev.id, environment: 'development', mode: 'conductor', capabilities_published: false },
        region: 'us',
      });
      expect((res.body.credential as { id: string }).id).toMatch(/^api_token_/);
      expect(res.text).not.toContain(dev.token);
    });

    it('answers 401 with the envelope and a Bearer challenge without credentials', async () => {
      const res = await http('GET', `${us}/api/v1/me`);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: expect.any(String), reason_code: 'unauthenticated' });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it.each([
      ['an unknown token', 'Bearer notarealtoken'],
      ['a malformed Authorization header', 'Basic abc'],
      ['a bearer with spaces', 'Bearer a b'],
      ['an oversized token', `Bearer ${'a'.repeat(600)}`],
    ])('answers 401 invalid_token for %s', async (_case, header) => {
      const res = await http('GET', `${us}/api/v1/me`, { headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.body.reason_code).toBe('invalid_token');
    });

    it('refuses a publishable key with 403: it may only create consent sessions', async () => {
      const res = await http('GET', `${us}/api/v1/me`, { headers: { 'x-publishable-key': dev.publishableKey } });
      expect(res.status).toBe(403);
      expect(res.body.reason_code).toBe('publishable_key_not_allowed');
    });

    it('refuses a malformed X-Delegation-Grant-Id (400) and an unknown grant (403), never 5xx', async () => {
      const malformed = await http('GET', `${us}/api/v1/me`, { headers: { ...auth(dev.token), 'x-delegation-grant-id': 'nope' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.reason_code).toBe('delegation_grant_invalid');
      const unknown = await http('GET', `${us}/api/v1/me`, {
        headers: { ...auth(dev.token), 'x-delegation-grant-id': 'dlg_us_abcdefghijklmnopqrst' },
      });
      expect(unknown.status).toBe(403);
      expect(unknown.body.reason_code).toBe('delegation_grant_not_found');
    });
  });

  describe('residency', () => {
    it('answers 421 naming the home region for a tp_eu_ path, without resource data', async () => {
      const res = await http('GET', `${us}/api/v1/applications/tp_eu_abcdefghijklmnopqrst`, { headers: auth(dev.token) });
      expect(res.status).toBe(421);
      expect(res.body).toEqual({
        message: expect.stringContaining('eu'),
        reason_code: 'wrong_region',
        home_country: 'DE',
        detail: { home_region: 'eu', home_country: 'DE', home_region_url: stack.url.eu },
      });
    });

    it('answers 421 for a foreign id in the query string and for a malformed foreign id', async () => {
      const query = await http('GET', `${us}/api/v1/me?application_id=tp_ap_abcdefghijklmnopqrst`, { headers: auth(dev.token) });
      expect(query.status).toBe(421);
      expect(query.body.detail).toMatchObject({ home_region: 'ap' });
      const malformed = await http('POST', `${us}/api/v1/applications/tp_eu_x/allowed_origins`, { json: {} });
      expect(malformed.status).toBe(421);
    });

    it('answers 421 grant_region_mismatch for an attestation refresh of a foreign grant', async () => {
      const res = await http('POST', `${us}/api/v1/grants/ath_eu_abcdefghijklmnopqrstuvwx/attestation`, { json: {} });
      expect(res.status).toBe(421);
      expect(res.body).toMatchObject({ reason_code: 'grant_region_mismatch', detail: { home_region: 'eu' } });
    });

    it('redirects a foreign capability document with 307 and a day-long public cache', async () => {
      const res = await http('GET', `${us}/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities`);
      expect(res.status).toBe(307);
      expect(res.headers.get('location')).toBe(`${stack.url.eu}/api/v1/agents/agent_eu_abcdefghijklmnopqrst/capabilities`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    });

    it('serves a local id locally', async () => {
      const res = await http('GET', `${us}/api/v1/applications/${dev.id}`, { headers: auth(dev.token) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: dev.id, object: 'application', name: 'demo', environment: 'development' });
      expect(res.body.publishable_key).toBe(dev.publishableKey);
    });
  });

  describe('POST /api/v1/applications/:application_id/allowed_origins', () => {
    const add = (app: { id: string; token: string }, origin: unknown) =>
      http('POST', `${us}/api/v1/applications/${app.id}/allowed_origins`, {
        headers: auth(app.token),
        json: { allowed_origin: { origin } },
      });

    it('registers an origin (201) and answers a repeat idempotently (200)', async () => {
      const first = await add(dev, 'https://shop.example.com');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ allowed_origin: { origin: 'https://shop.example.com', created_at: expect.any(String) } });
      const again = await add(dev, 'https://shop.example.com');
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
    });

    it.each(['http://localhost:3000', 'http://127.0.0.1:5173', 'http://localhost'])(
      'accepts %s for a development application',
      async (origin) => {
        expect((await add(dev, origin)).status).toBe(201);
      },
    );

    it('stores the canonical origin (lowercase host, default port dropped)', async () => {
      const res = await add(dev, 'HTTPS://Docs.Example.COM:443');
      expect(res.body).toMatchObject({ allowed_origin: { origin: 'https://docs.example.com' } });
    });

    it.each([
      ['a trailing slash', 'https://example.com/', 'allowed_origin_invalid'],
      ['a path', 'https://example.com/app', 'allowed_origin_invalid'],
      ['a query', 'https://example.com?x=1', 'allowed_origin_invalid'],
      ['a fragment', 'https://example.com#x', 'allowed_origin_invalid'],
      ['credentials', 'https://user:pw@example.com', 'allowed_origin_invalid'],
      ['not a URL', 'example.com', 'allowed_origin_invalid'],
      ['another scheme', 'ftp://example.com', 'allowed_origin_invalid'],
      ['plain http to a public host', 'http://example.com', 'allowed_origin_requires_https'],
    ])('refuses %s with 422 naming the field', async (_case, origin, code) => {
      const res = await add(dev, origin);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: code, detail: { field: 'allowed_origin.origin' } });
    });

    it('requires HTTPS for a production application, even for localhost', async () => {
      const res = await add(prod, 'http://localhost:3000');
      expect(res.status).toBe(422);
      expect(res.body.reason_code).toBe('allowed_origin_requires_https');
      expect((await add(prod, 'https://app.example.com')).status).toBe(201);
    });

    it('answers 404 for another application, exactly as for an unknown one', async () => {
      const foreign = await http('POST', `${us}/api/v1/applications/${other.id}/allowed_origins`, {
        headers: auth(dev.token),
        json: { allowed_origin: { origin: 'https://x.example.com' } },
      });
      const unknown = await http('POST', `${us}/api/v1/applications/tp_us_aaaaaaaaaaaaaaaaaaaa/allowed_origins`, {
        headers: auth(dev.token),
        json: { allowed_origin: { origin: 'https://x.example.com' } },
      });
      expect(foreign.status).toBe(404);
      expect(unknown.status).toBe(404);
      expect(foreign.body.reason_code).toBe('application_not_found');
      expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(unknown.body).sort());
    });

    it('lists origins with cursor pagination, never truncating silently', async () => {
      const app = await createApp('production', 'paged');
      const origins = Array.from({ length: 5 }, (_, i) => `https://o${i}.example.com`);
      for (const origin of origins) expect((await add(app, origin)).status).toBe(201);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { data: Array<{ origin: string }>; next_cursor: string | null; has_more: boolean } } =
          await http('GET', `${us}/api/v1/applications/${app.id}/allowed_origins?limit=2${cursor ? `&cursor=${cursor}` : ''}`, {
            headers: auth(app.token),
          });
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((o) => o.origin));
        expect(res.body.has_more).toBe(res.body.next_cursor !== null);
        cursor = res.body.next_cursor;
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...origins].sort());
    });

    it('refuses a forged cursor and an out-of-range limit', async () => {
      const forged = await http('GET', `${us}/api/v1/applications/${dev.id}/allowed_origins?cursor=!!!`, { headers: auth(dev.token) });
      expect(forged.status).toBe(400);
      expect(forged.body).toMatchObject({ reason_code: 'invalid_cursor', detail: { field: 'cursor' } });
      const limit = await http('GET', `${us}/api/v1/applications/${dev.id}/allowed_origins?limit=0`, { headers: auth(dev.token) });
      expect(limit.status).toBe(422);
      expect(limit.body.detail).toMatchObject({ field: 'limit' });
    });

    it('removes an origin, and answers 404 for one not registered', async () => {
      await add(dev, 'https://gone.example.com');
      const removed = await http(
        'DELETE',
        `${us}/api/v1/applications/${dev.id}/allowed_origins?origin=${encodeURIComponent('https://gone.example.com')}`,
        { headers: auth(dev.token) },
      );
      expect(removed.status).toBe(204);
      const again = await http(
        'DELETE',
        `${us}/api/v1/applications/${dev.id}/allowed_origins?origin=${encodeURIComponent('https://gone.example.com')}`,
        { headers: auth(dev.token) },
      );
      expect(again.status).toBe(404);
    });
  });

  describe('bad input never yields a 5xx', () => {
    const url = () => `${us}/api/v1/applications/${dev.id}/allowed_origins`;
    const cases: Array<[string, () => Promise<{ status: number; body: Record<string, unknown> }>, number, string]> = [
      [
        'malformed JSON',
        () => http('POST', url(), { headers: { ...auth(dev.token), 'content-type': 'application/json' }, raw: '{"allowed_origin":' }),
        400,
        'malformed_json',
      ],
      [
        'an empty JSON body',
        () => http('POST', url(), { headers: { ...auth(dev.token), 'content-type': 'application/json' }, raw: '' }),
        400,
        'malformed_json',
      ],
      [
        'an unknown top-level field',
        () => http('POST', url(), { headers: auth(dev.token), json: { allowed_origin: { origin: 'https://a.example.com' }, extra: 1 } }),
        400,
        'invalid_request',
      ],
      [
        'an unknown nested field',
        () => http('POST', url(), { headers: auth(dev.token), json: { allowed_origin: { origin: 'https://a.example.com', path: '/x' } } }),
        400,
        'invalid_request',
      ],
      [
        'a wrong type',
        () => http('POST', url(), { headers: auth(dev.token), json: { allowed_origin: { origin: 42 } } }),
        400,
        'invalid_request',
      ],
      ['a missing field', () => http('POST', url(), { headers: auth(dev.token), json: {} }), 400, 'invalid_request'],
      ['an array body', () => http('POST', url(), { headers: auth(dev.token), json: [1, 2] }), 400, 'invalid_request'],
      ['a string body', () => http('POST', url(), { headers: auth(dev.token), json: 'https://a.example.com' }), 400, 'invalid_request'],
      [
        'a prototype-poisoning body',
        () => http('POST', url(), { headers: { ...auth(dev.token), 'content-type': 'application/json' }, raw: '{"__proto__":{"x":1}}' }),
        400,
        'malformed_json',
      ],
      [
        'a text/plain body',
        () => http('POST', url(), { headers: { ...auth(dev.token), 'content-type': 'text/plain' }, raw: 'hello' }),
        415,
        'unsupported_media_type',
      ],
      [
        'an oversized body',
        () => http('POST', url(), { headers: auth(dev.token), json: { allowed_origin: { origin: 'x'.repeat(1_100_000) } } }),
        413,
        'payload_too_large',
      ],
      [
        'no credentials',
        () => http('POST', url(), { json: { allowed_origin: { origin: 'https://a.example.com' } } }),
        401,
        'unauthenticated',
      ],
      [
        'an invalid token',
        () => http('POST', url(), { headers: auth('wrong'), json: { allowed_origin: { origin: 'https://a.example.com' } } }),
        401,
        'invalid_token',
      ],
      [
        'a publishable key',
        () =>
          http('POST', url(), {
            headers: { 'x-publishable-key': dev.publishableKey },
            json: { allowed_origin: { origin: 'https://a.example.com' } },
          }),
        403,
        'publishable_key_not_allowed',
      ],
      ['an unknown route', () => http('GET', `${us}/api/v1/nothing-here`, { headers: auth(dev.token) }), 404, 'route_not_found'],
      [
        'a PATCH with a wrong type',
        () => http('PATCH', `${us}/api/v1/applications/${dev.id}`, { headers: auth(dev.token), json: { capabilities_published: 'yes' } }),
        400,
        'invalid_request',
      ],
      [
        'a PATCH with an unknown mode',
        () => http('PATCH', `${us}/api/v1/applications/${dev.id}`, { headers: auth(dev.token), json: { mode: 'anarchy' } }),
        422,
        'validation_failed',
      ],
      [
        'a token request with an unknown scope',
        () =>
          http('POST', `${us}/api/v1/applications/${dev.id}/api_tokens`, {
            headers: auth(dev.token),
            json: { name: 'x', scopes: ['root'] },
          }),
        422,
        'validation_failed',
      ],
    ];
    it.each(cases)('%s is answered with its 4xx and the envelope', async (_name, call, status, code) => {
      const res = await call();
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ message: expect.any(String), reason_code: code });
      expect(JSON.stringify(res.body)).not.toMatch(/stack|at \w+ \(|SELECT|INSERT/);
    });
  });

  describe('applications and API tokens', () => {
    it('updates mode and capability publication', async () => {
      const res = await http('PATCH', `${us}/api/v1/applications/${dev.id}`, {
        headers: auth(dev.token),
        json: { mode: 'hybrid', capabilities_published: true },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ mode: 'hybrid', capabilities_published: true });
    });

    it('issues a token shown once, lists tokens without secrets, and revokes it at once', async () => {
      const issued = await http('POST', `${us}/api/v1/applications/${dev.id}/api_tokens`, {
        headers: auth(dev.token),
        json: { name: 'ci', scopes: ['audit:verify'] },
      });
      expect(issued.status).toBe(201);
      const token = (issued.body.api_token as { token: string; id: string }).token;
      const tokenId = (issued.body.api_token as { token: string; id: string }).id;
      expect((await http('GET', `${us}/api/v1/me`, { headers: auth(token) })).body).toMatchObject({
        credential: { id: tokenId, scopes: ['audit:verify'] },
      });
      const list = await http('GET', `${us}/api/v1/applications/${dev.id}/api_tokens`, { headers: auth(dev.token) });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(token);
      expect((list.body.data as Array<{ id: string }>).map((t) => t.id)).toContain(tokenId);
      const revoked = await http('DELETE', `${us}/api/v1/applications/${dev.id}/api_tokens/${tokenId}`, { headers: auth(dev.token) });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ api_token: { id: tokenId, revoked_at: expect.any(String) } });
      await waitFor(async () => (await http('GET', `${us}/api/v1/me`, { headers: auth(token) })).status === 401, 2_000, 50);
    });

    it('refuses to revoke the last active token', async () => {
      const app = await createApp('development', 'single');
      const list = await http('GET', `${us}/api/v1/applications/${app.id}/api_tokens`, { headers: auth(app.token) });
      const only = (list.body.data as Array<{ id: string }>)[0]!.id;
      const res = await http('DELETE', `${us}/api/v1/applications/${app.id}/api_tokens/${only}`, { headers: auth(app.token) });
      expect(res.status).toBe(409);
      expect(res.body.reason_code).toBe('last_api_token');
      expect((await http('GET', `${us}/api/v1/me`, { headers: auth(app.token) })).status).toBe(200);
    });
  });

  describe('operations endpoints', () => {
    it('serves /healthz, /readyz with its checks, and Prometheus /metrics', async () => {
      expect((await http('GET', `${us}/healthz`)).body).toEqual({ status: 'ok' });
      const ready = await http('GET', `${us}/readyz`);
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ok', checks: { postgres: { ok: true }, nats: { ok: true } } });
      const metrics = await http('GET', `${us}/metrics`);
      expect(metrics.text).toContain('http_requests_total');
    });
  });
});
