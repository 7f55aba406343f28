import {
  CONSENT_SESSIONS_DEPRECATED_AT,
  CONSENT_SESSIONS_SUNSET,
  CreateApplication,
  CreateApplicationCommand,
} from '@svc/decision-gateway';
import { http } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;

/**
 * GET operations whose 200 carries an array but is not a cursor-paginated list, each with why.
 * Everything else answering a list pages with `limit` (documented maximum), `cursor`, `has_more`
 * and `next_cursor`.
 */
const NOT_PAGED: Record<string, string> = {
  '/api/v1/ssf/streams':
    'Shared Signals stream configurations: the SSF specification fixes this answer as a bare array; at most one stream per receiver audience',
  '/people/passkeys': "the signed-in person's own passkeys (WebAuthn credential list for the sign-in page), a handful per person",
  '/api/v1/residency_posture': 'a report of fixed size: one row per country and data category of the deployment, not a collection',
};

/** Spec: Versioning 2–3; issue 25 item 7 (deprecated alias headers, legacy escalation URL, list pagination, request ids). */
describe('API conventions through the us router, across regions', () => {
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let app: { id: string; token: string };
  let euApp: { id: string; token: string };

  beforeAll(async () => {
    stack = await startRegions('connect_conventions', { regions: ['us', 'eu'] });
    us = stack.url.us;
    eu = stack.url.eu;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'conventions', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const other = await stack.process.eu.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'conventions-eu', environment: 'development' }));
    euApp = { id: other.application.id, token: other.apiToken };
  });
  afterAll(() => stack?.close());

  describe('the deprecated POST /api/v1/consent_sessions alias', () => {
    const expectDeprecated = (res: { status: number; headers: Headers }, status: number) => {
      expect({
        status: res.status,
        deprecation: res.headers.get('deprecation'),
        sunset: res.headers.get('sunset'),
        link: res.headers.get('link'),
      }).toEqual({
        status,
        deprecation: CONSENT_SESSIONS_DEPRECATED_AT,
        sunset: CONSENT_SESSIONS_SUNSET,
        link: '</api/v1/decisions>; rel="successor-version"',
      });
    };
    const url = () => `${us}/api/v1/consent_sessions`;

    it('marks every error answer, including those given before a handler runs', async () => {
      expectDeprecated(await http('POST', url(), { json: { flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa' } }), 401);
      expectDeprecated(await http('POST', url(), { headers: { authorization: 'Bearer not-a-token' }, json: {} }), 401);
      expectDeprecated(
        await http('POST', url(), { headers: { authorization: `Bearer ${app.token}`, 'content-type': 'text/plain' }, raw: 'flow_id=x' }),
        415,
      );
      expectDeprecated(
        await http('POST', url(), {
          headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
          raw: '{"flow_id":',
        }),
        400,
      );
      expectDeprecated(
        await http('POST', url(), {
          headers: { authorization: `Bearer ${app.token}` },
          json: { flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa', unknown: 1 },
        }),
        400,
      );
      const missing = await http('POST', url(), {
        headers: { authorization: `Bearer ${app.token}` },
        json: { flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa' },
      });
      expect(missing.status).toBeGreaterThanOrEqual(400);
      expect(missing.status).toBeLessThan(500);
      expectDeprecated(missing, missing.status);
      expectDeprecated(await http('GET', url(), { headers: { authorization: `Bearer ${app.token}` } }), 404);
      // A publishable key may use the alias; a foreign one is refused with the headers too.
      expectDeprecated(
        await http('POST', url(), { headers: { 'x-publishable-key': 'pk_test_unknownunknownunknownunknown12' }, json: {} }),
        401,
      );
    });

    it('leaves its successor unmarked', async () => {
      const res = await http('POST', `${us}/api/v1/decisions`, { json: {} });
      expect(res.status).toBe(401);
      expect(res.headers.get('deprecation')).toBeNull();
      expect(res.headers.get('sunset')).toBeNull();
    });
  });

  describe('the retired /oap/escalations URL', () => {
    const token = 'A'.repeat(20) + '_-' + 'b'.repeat(21);

    it('answers 301 to the unified decision page when it carries a session token', async () => {
      for (const query of [`token=${token}`, `session_token=${token}`]) {
        const res = await http('GET', `${us}/oap/escalations?${query}`);
        expect(res.status).toBe(301);
        expect(res.headers.get('location')).toBe(`/decisions/${token}`);
      }
      const prefixed = await http('GET', `${eu}/oap/escalations?token=dts_${token}`);
      expect([prefixed.status, prefixed.headers.get('location')]).toEqual([301, `/decisions/dts_${token}`]);
    });

    it('is gone without one, or with something that is not a session token', async () => {
      for (const query of ['', '?token=', '?token=short', `?token=${token}/../x`, '?token=https://evil.example.com/']) {
        const res = await http('GET', `${us}/oap/escalations${query}`);
        expect(res.status).toBe(404);
        expect(res.headers.get('location')).toBeNull();
      }
    });
  });

  describe('every list pages with a cursor and a documented maximum page size', () => {
    it('walks the OpenAPI document: each GET answering a list documents limit (with maximum), cursor, has_more and next_cursor', async () => {
      const res = await http<Json>('GET', `${us}/.well-known/openapi`);
      expect(res.status).toBe(200);
      const document = res.body;
      const resolve = (node: unknown): Json => {
        let current = node as Json;
        for (let i = 0; i < 10 && current && typeof current.$ref === 'string'; i++) {
          current = (current.$ref as string)
            .slice(2)
            .split('/')
            .reduce<Json>((at, part) => at[part] as Json, document);
        }
        return current ?? {};
      };
      const alternatives = (schema: Json): Json[] => [schema, ...((schema.anyOf ?? schema.oneOf ?? []) as unknown[]).map(resolve)];
      const isPage = (schema: Json): boolean => {
        const properties = (schema.properties ?? {}) as Json;
        return resolve(properties.data).type === 'array' && 'has_more' in properties && 'next_cursor' in properties;
      };
      /** The page shapes of a response: the body itself, an alternative of it, or a property holding one (an import's `rows`). */
      const pagesIn = (schema: Json): Json[] =>
        alternatives(schema)
          .flatMap((s) => [s, ...Object.values((s.properties ?? {}) as Json).map(resolve)])
          .filter(isPage);
      const hasArray = (schema: Json): boolean =>
        alternatives(schema).some((s) => s.type === 'array' || resolve(((s.properties ?? {}) as Json).data).type === 'array');

      const findings: Array<{ path: string; problem: string }> = [];
      let lists = 0;
      for (const [path, operations] of Object.entries(document.paths as Record<string, Json>)) {
        const get = operations.get as Json | undefined;
        if (!get) continue;
        const ok = resolve((get.responses as Json)['200']);
        const schema = resolve(((ok.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema);
        const parameters = ((get.parameters ?? []) as unknown[]).map(resolve);
        const limit = parameters.find((p) => p.name === 'limit' && p.in === 'query');
        const cursor = parameters.find((p) => p.name === 'cursor' && p.in === 'query');
        const pages = pagesIn(schema);
        if (path in NOT_PAGED) continue;
        if (pages.length === 0 && !limit && !hasArray(schema)) continue;
        if (((ok.content ?? {}) as Json)['application/json'] === undefined) continue; // HTML pages
        lists++;
        if (pages.length === 0) findings.push({ path, problem: 'a list without has_more and next_cursor' });
        if (!limit) findings.push({ path, problem: 'no limit parameter' });
        else if (typeof resolve(limit.schema).maximum !== 'number') findings.push({ path, problem: 'limit without a maximum' });
        if (!cursor) findings.push({ path, problem: 'no cursor parameter' });
      }
      expect(findings).toEqual([]);
      expect(lists).toBeGreaterThanOrEqual(40);
    });

    it('enforces the documented maximum', async () => {
      const over = await http('GET', `${us}/api/v1/trust_pairings?limit=201`, { headers: { authorization: `Bearer ${app.token}` } });
      expect(over.status).toBe(422);
      const max = await http<Json>('GET', `${us}/api/v1/trust_pairings?limit=200`, { headers: { authorization: `Bearer ${app.token}` } });
      expect(max.status).toBe(200);
      expect(max.body).toMatchObject({ data: [], has_more: false, next_cursor: null });
    });
  });

  describe('X-Request-Id on every response', () => {
    const id = 'req-5f0c2e7a-1b2c-4d5e-8f90-123456789abc';

    it("echoes the caller's id on successes, errors and cross-region refusals, in both regions", async () => {
      const answers = await Promise.all([
        http('GET', `${us}/api/v1/me`, { headers: { authorization: `Bearer ${app.token}`, 'x-request-id': id } }),
        http('GET', `${eu}/api/v1/me`, { headers: { authorization: `Bearer ${euApp.token}`, 'x-request-id': id } }),
        http('GET', `${us}/api/v1/me`, { headers: { 'x-request-id': id } }),
        http('GET', `${us}/api/v1/nothing_here`, { headers: { 'x-request-id': id } }),
        http('POST', `${us}/api/v1/trust_pairings`, {
          headers: { authorization: `Bearer ${app.token}`, 'x-request-id': id, 'content-type': 'application/json' },
          raw: '{',
        }),
        // A foreign regional id at the us router: 421 wrong_region, still with the request's id.
        http('GET', `${us}/api/v1/trust_pairings/tpr_eu_aaaaaaaaaaaaaaaaaaaa`, {
          headers: { authorization: `Bearer ${app.token}`, 'x-request-id': id },
        }),
        http('GET', `${us}/api/v1/applications/${euApp.id}`, { headers: { authorization: `Bearer ${app.token}`, 'x-request-id': id } }),
        http('GET', `${us}/oap/escalations?token=${'c'.repeat(43)}`, { headers: { 'x-request-id': id } }),
        http('GET', `${us}/.well-known/openapi`, { headers: { 'x-request-id': id } }),
      ]);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 401, 404, 400, 421, 421, 301, 200]);
      for (const answer of answers) expect(answer.headers.get('x-request-id')).toBe(id);
    });

    it('gives one when the caller sends none, or an unusable one', async () => {
      const fresh = await http('GET', `${us}/api/v1/me`, { headers: { authorization: `Bearer ${app.token}` } });
      const generated = fresh.headers.get('x-request-id');
      expect(generated).toMatch(/^[0-9a-f-]{36}$/);
      const bad = await http('GET', `${eu}/api/v1/me`, { headers: { 'x-request-id': 'x'.repeat(2000) } });
      expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
});
