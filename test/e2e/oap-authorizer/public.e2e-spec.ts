import { KeyEncryption, canonicalJson, sha256Hex } from '@svc/crypto';
import { newRegionalId } from '@svc/ids';
import { KEYS_SCHEMA, SigningKeyStore } from '@svc/key-store';
import { OutboxWriter } from '@svc/persistence';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { startRegions, type TestRegions } from '../support/regions';
import { AgentsRepository, CapabilityDocuments, UNDISCOVERABLE_BODY } from '@svc/oap-authorizer';
import { MEMORY_ANSWERS_METRIC } from '@svc/server';
import { Metrics } from '@svc/telemetry';
import { bearer, createAgent, createApp, publishManifest, type TestApp } from './support';

/** Spec: Capability document, Limits (capability endpoint), OAP endpoints (version), agent_metadata; issue 3 Deliver 1, 2, 8. */
describe('agents, authorities, capability documents and /api/v1/oap/version', () => {
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let other: TestApp;

  const ip = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
  const publish = (target: TestApp, value: boolean, mode?: string) =>
    http('PATCH', `${us}/api/v1/applications/${target.id}`, {
      headers: bearer(target.token),
      json: { capabilities_published: value, ...(mode ? { mode } : {}) },
    });

  beforeAll(async () => {
    stack = await startRegions('oap_public', { regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    other = await createApp(stack, 'other');
    expect((await publish(app, true)).status).toBe(200);
  });
  afterAll(() => stack?.close());

  describe('agent identities', () => {
    it('registers agent_<region>_<base32> with self-reported metadata (provenance integrator_self_report)', async () => {
      const res = await http('POST', `${us}/api/v1/agents`, {
        headers: bearer(app.token),
        json: { name: 'a', agent_metadata: { agent_type: 'coding', agent_provider: 'acme' } },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'agent',
        application_id: app.id,
        agent_metadata: { agent_type: 'coding', agent_provider: 'acme' },
        agent_metadata_provenance: 'integrator_self_report',
      });
      expect(res.body.id).toMatch(/^agent_us_[a-z2-7]{20}$/);
      expect((await http('GET', `${us}/api/v1/agents/${res.body.id as string}`, { headers: bearer(app.token) })).status).toBe(200);
      const foreign = await http('GET', `${us}/api/v1/agents/${res.body.id as string}`, { headers: bearer(other.token) });
      expect(foreign.status).toBe(404);
      expect(foreign.body.reason_code).toBe('agent_not_found');
      const list = await http<{ data: unknown[]; has_more: boolean }>('GET', `${us}/api/v1/agents?limit=1`, { headers: bearer(app.token) });
      expect(list.body.data).toHaveLength(1);
    });

    it.each([
      ['unknown metadata field', { name: 'a', agent_metadata: { colour: 'x' } }, 400, 'agent_credential_malformed'],
      ['agent_type outside the taxonomy', { name: 'a', agent_metadata: { agent_type: 'robot' } }, 400, 'agent_type_outside_taxonomy'],
      ['agent_version over 100', { name: 'a', agent_metadata: { agent_version: 'v'.repeat(101) } }, 400, 'agent_credential_malformed'],
      ['unknown top-level field', { name: 'a', extra: 1 }, 400, 'invalid_request'],
      ['wrong type', { name: 5 }, 400, 'invalid_request'],
      ['empty name', { name: '' }, 422, 'validation_failed'],
    ])('refuses %s', async (_case, json, status, code) => {
      const res = await http('POST', `${us}/api/v1/agents`, { headers: bearer(app.token), json });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(code);
    });

    it('refuses a manifest with bad scopes and a call without a token', async () => {
      const agentId = await createAgent(us, app);
      const bad = await http('POST', `${us}/api/v1/agents/${agentId}/capabilities`, {
        headers: bearer(app.token),
        json: { scopes: [{ id: 'UPPER CASE', label: 'x' }], actions: [] },
      });
      expect(bad.status).toBe(422);
      expect((await http('POST', `${us}/api/v1/agents`, { json: { name: 'a' } })).status).toBe(401);
    });
  });

  describe('authorities', () => {
    it('creates an authority with any subset of the bounds and refuses bad ones', async () => {
      const agentId = await createAgent(us, app, { manifest: true });
      const ok = await http('POST', `${us}/api/v1/authorities`, {
        headers: bearer(app.token),
        json: {
          agent_id: agentId,
          principal_id: 'user_9',
          escalation_bounds: { quorum_type: 'threshold', threshold: 2, approvers: ['a', 'b', 'c'] },
          valid_until: '2030-01-01T00:00:00Z',
          cooling_off_seconds: 60,
        },
      });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({
        object: 'authority',
        status: 'active',
        cooling_off_seconds: 60,
        escalation_bounds: { quorum_type: 'threshold' },
      });
      expect(ok.body.id).toMatch(/^auth_us_/);
      expect(ok.body).not.toHaveProperty('value_bounds');
      const cases: Array<[Record<string, unknown>, number, string]> = [
        [{ value_bounds: { currency: 'EUR', per_action: 10 } }, 400, 'invalid_request'],
        [{ value_bounds: { currency: 'EUR', per_action: '-1' } }, 422, 'validation_failed'],
        [{ value_bounds: { per_action: '10' } }, 422, 'validation_failed'],
        [{ escalation_bounds: { quorum_type: 'some', approvers: [] } }, 422, 'validation_failed'],
        [{ escalation_bounds: { quorum_type: 'threshold', threshold: 3, approvers: ['a'] } }, 422, 'validation_failed'],
        [{ scope_bounds: { allowed: ['x'], extra: 1 } }, 400, 'invalid_request'],
        [{ valid_from: '2030-02-01T00:00:00Z' }, 422, 'validation_failed'],
      ];
      for (const [override, status, code] of cases) {
        const res = await http('POST', `${us}/api/v1/authorities`, {
          headers: bearer(app.token),
          json: { agent_id: agentId, principal_id: 'p', valid_until: '2030-01-01T00:00:00Z', ...override },
        });
        expect([JSON.stringify(override), res.status, res.body.reason_code]).toEqual([JSON.stringify(override), status, code]);
      }
      const foreign = await http('POST', `${us}/api/v1/authorities`, {
        headers: bearer(other.token),
        json: { agent_id: agentId, principal_id: 'p', valid_until: '2030-01-01T00:00:00Z' },
      });
      expect(foreign.status).toBe(404);
      expect((await http('GET', `${us}/api/v1/authorities/${ok.body.id as string}`, { headers: bearer(other.token) })).status).toBe(404);
      expect(
        (await http('POST', `${us}/api/v1/authorities/auth_us_aaaaaaaaaaaaaaaaaaaa/suspend`, { headers: bearer(app.token), json: {} }))
          .status,
      ).toBe(404);
    });
  });

  describe('GET /api/v1/agents/{agent_id}/capabilities', () => {
    let agentId: string;
    beforeAll(async () => {
      agentId = await createAgent(us, app, {
        manifest: true,
        metadata: { agent_type: 'assistant', agent_provider: 'acme', agent_model: 'm', agent_version: '1' },
      });
    });

    it('serves the document with a strong ETag, public max-age=300, and 304 on If-None-Match', async () => {
      const res = await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: ip(1) });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      const etag = res.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      expect(res.body).toMatchObject({
        agent_id: agentId,
        region: 'us',
        version_id: expect.stringMatching(/^tpcv_us_/),
        actions: ['pay', 'quote'],
        bounds_supported: ['scope', 'action', 'value', 'time', 'escalation', 'reputation'],
        oidc_a: {
          agent_capabilities: ['oap:payments:read', 'oap:payments:write'],
          projection_version: 1,
          agent_type: 'assistant',
          agent_provider: 'acme',
          agent_model: 'm',
          agent_version: '1',
        },
        cache: { max_age_seconds: 300 },
      });
      expect((res.body.scopes as unknown[])[0]).toEqual({
        id: 'payments:read',
        label: 'Read payments',
        parent: 'payments:write',
        custom: false,
        status: 'active',
      });
      const cached = await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: { ...ip(1), 'if-none-match': etag } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get('cache-control')).toBe('public, max-age=300');
      expect(cached.headers.get('etag')).toBe(etag);
      const stale = await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: { ...ip(1), 'if-none-match': '"other"' } });
      expect(stale.status).toBe(200);
      await publishManifest(us, app, agentId, ['pay']);
      const changed = await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: { ...ip(1), 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
    });

    it('answers agent_id_malformed 400 with no-store', async () => {
      const res = await http('GET', `${us}/api/v1/agents/not-an-agent/capabilities`, { headers: ip(2) });
      expect(res.status).toBe(400);
      expect(res.body.reason_code).toBe('agent_id_malformed');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });

    it('answers one byte-identical 404 for the five undiscoverable cases', async () => {
      const bodies: string[] = [];
      const get = async (id: string) => {
        const res = await http('GET', `${us}/api/v1/agents/${id}/capabilities`, { headers: ip(3) });
        expect(res.status).toBe(404);
        expect(res.headers.get('cache-control')).toBe('no-store');
        bodies.push(res.text);
      };
      await get('agent_us_aaaaaaaaaaaaaaaaaaaa'); // unknown agent
      await get(await createAgent(us, app)); // no snapshot
      const suppressed = await createAgent(us, app, { manifest: true });
      const repo = stack.process.us.app.get(AgentsRepository, { strict: false });
      await repo.transaction((m) => repo.setSuppressed(m, suppressed, true, new Date()));
      await get(suppressed); // operator suppression
      const unpublished = await createApp(stack, 'unpublished');
      await get(await createAgent(us, unpublished, { manifest: true })); // capabilities_published false
      const oversight = await createApp(stack, 'oversight');
      expect((await publish(oversight, true, 'oversight')).status).toBe(200);
      await get(await createAgent(us, oversight, { manifest: true })); // application not of agent type
      expect(new Set(bodies)).toEqual(new Set([UNDISCOVERABLE_BODY]));
      expect(bodies).toHaveLength(5);
    });

    it('limits GET to 60 per minute per IP, OPTIONS unlimited, 429 with no-store and Retry-After', async () => {
      for (let i = 0; i < 60; i++)
        expect((await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: ip(9) })).status).toBe(200);
      const limited = await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: ip(9) });
      expect(limited.status).toBe(429);
      expect(limited.body.reason_code).toBe('rate_limited');
      expect(limited.headers.get('cache-control')).toBe('no-store');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      for (let i = 0; i < 5; i++)
        expect(
          (
            await http('OPTIONS', `${us}/api/v1/agents/${agentId}/capabilities`, {
              headers: { ...ip(9), origin: 'https://x.example', 'access-control-request-method': 'GET' },
            })
          ).status,
        ).toBe(204);
      expect((await http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: ip(10) })).status).toBe(200);
    });
  });

  describe('public documents served from memory, dropped on every change', () => {
    const capabilities = (agentId: string, n: number, etag?: string) =>
      http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: { ...ip(n), ...(etag ? { 'if-none-match': etag } : {}) } });

    it('answers a matching If-None-Match with 304 without reading the database', async () => {
      const agentId = await createAgent(us, app, { manifest: true });
      const first = await capabilities(agentId, 20);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      const repo = stack.process.us.app.get(AgentsRepository, { strict: false });
      const find = jest.spyOn(repo, 'find');
      const currentVersion = jest.spyOn(repo, 'currentVersion');
      try {
        // Once this agent's publication event has fanned out (it leaves this document in place),
        // every conditional read is answered from memory.
        let round = 0;
        await waitFor(async () => {
          const n = 100 + (round++ % 100);
          find.mockClear();
          currentVersion.mockClear();
          for (let i = 0; i < 5; i++) {
            const res = await capabilities(agentId, n, etag);
            expect([
              res.status,
              res.headers.get('etag'),
              res.headers.get('cache-control'),
              res.headers.get('access-control-allow-origin'),
              res.text,
            ]).toEqual([304, etag, 'public, max-age=300', '*', '']);
          }
          const full = await capabilities(agentId, n, 'W/"other", "another"');
          expect([full.status, full.headers.get('etag'), full.text]).toEqual([200, etag, first.text]);
          expect(full.headers.get('content-type')).toBe('application/json; charset=utf-8');
          expect((await capabilities(agentId, n, `"x", W/${etag}`)).status).toBe(304);
          return find.mock.calls.length === 0 && currentVersion.mock.calls.length === 0;
        }, 10_000);
        expect(find).not.toHaveBeenCalled();
        expect(currentVersion).not.toHaveBeenCalled();
      } finally {
        find.mockRestore();
        currentVersion.mockRestore();
      }
    });

    it('changes the ETag at once when this instance publishes a capability version', async () => {
      const agentId = await createAgent(us, app, { manifest: true });
      const etag = (await capabilities(agentId, 21)).headers.get('etag')!;
      expect((await capabilities(agentId, 21, etag)).status).toBe(304);
      await publishManifest(us, app, agentId, ['quote']);
      const changed = await capabilities(agentId, 21, etag);
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.actions).toEqual(['quote']);
    });

    it('drops the document when another instance publishes a version (its event fans out)', async () => {
      const agentId = await createAgent(us, app, { manifest: true });
      const etag = (await capabilities(agentId, 22)).headers.get('etag')!;
      expect((await capabilities(agentId, 22, etag)).status).toBe(304);
      // What another instance does: the new version and its event in one transaction, relayed from the outbox.
      const repo = stack.process.us.app.get(AgentsRepository, { strict: false });
      const scopes = [{ id: 'payments:write', label: 'Make payments', parent: null, custom: false, status: 'active' }];
      const manifestJson = canonicalJson({ scopes, actions: ['refund'] });
      const version = {
        versionId: newRegionalId('capability_version', 'us'),
        agentId,
        scopes,
        actions: ['refund'],
        manifestSha256: sha256Hex(manifestJson),
        publishedAt: new Date(),
      };
      const outbox = new OutboxWriter('oap', 'us');
      await repo.transaction(async (manager) => {
        await repo.insertVersion(manager, version, manifestJson);
        await outbox.add(
          manager,
          'oap.capabilities_published',
          { agentId, versionId: version.versionId, manifestSha256: version.manifestSha256 },
          { applicationId: app.id, occurredAt: version.publishedAt },
        );
      });
      const changed = await waitFor(async () => {
        const res = await capabilities(agentId, 22, etag);
        return res.status === 200 ? res : undefined;
      }, 10_000);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body).toMatchObject({ version_id: version.versionId, actions: ['refund'] });
    });

    it('answers undiscoverable once the application stops publishing or leaves agent mode, and serves it again after', async () => {
      const toggled = await createApp(stack, 'toggled');
      expect((await publish(toggled, true)).status).toBe(200);
      const agentId = await createAgent(us, toggled, { manifest: true });
      const etag = (await capabilities(agentId, 23)).headers.get('etag')!;
      expect((await capabilities(agentId, 23, etag)).status).toBe(304);
      expect((await publish(toggled, false)).status).toBe(200);
      const hidden = await waitFor(async () => {
        const res = await capabilities(agentId, 23, etag);
        return res.status === 404 ? res : undefined;
      }, 10_000);
      expect([hidden.text, hidden.headers.get('cache-control'), hidden.headers.get('etag')]).toEqual([
        UNDISCOVERABLE_BODY,
        'no-store',
        null,
      ]);
      expect((await publish(toggled, true)).status).toBe(200);
      await waitFor(async () => (await capabilities(agentId, 23, etag)).status === 304, 10_000);
      expect((await publish(toggled, true, 'oversight')).status).toBe(200);
      await waitFor(async () => (await capabilities(agentId, 24, etag)).status === 404, 10_000);
    });

    it('serves the JWKS with a strong ETag and 304, and a new ETag once another process rotates the key', async () => {
      const first = await http<{ keys: Array<{ kid: string }> }>('GET', `${us}/.well-known/jwks.json`);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('application/jwk-set+json; charset=utf-8');
      expect(first.headers.get('cache-control')).toBe('public, max-age=60');
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      const cached = await http('GET', `${us}/.well-known/jwks.json`, { headers: { 'if-none-match': etag } });
      expect([cached.status, cached.headers.get('etag'), cached.headers.get('cache-control'), cached.text]).toEqual([
        304,
        etag,
        'public, max-age=60',
        '',
      ]);
      // What the admin CLI does from its own process: the rotation and its event in one transaction.
      const store = new SigningKeyStore(stack.process.us.app.get(DataSource), 'us', stack.process.us.app.get(KeyEncryption));
      const outbox = new OutboxWriter(KEYS_SCHEMA, 'us');
      const rotated = await store.rotate((manager, key) =>
        outbox.add(manager, 'keys.signing_key_rotated', { kid: key.kid, version: key.version }).then(() => undefined),
      );
      const changed = await waitFor(async () => {
        const res = await http<{ keys: Array<{ kid: string }> }>('GET', `${us}/.well-known/jwks.json`, {
          headers: { 'if-none-match': etag },
        });
        return res.status === 200 ? res : undefined;
      }, 10_000);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect(changed.body.keys.map((k) => k.kid)).toEqual([rotated.kid, ...first.body.keys.map((k) => k.kid)]);
      expect(
        (await http('GET', `${us}/.well-known/jwks.json`, { headers: { 'if-none-match': changed.headers.get('etag')! } })).status,
      ).toBe(304);
    });
  });

  describe('public documents answered from memory before the route', () => {
    /** Status, bytes and headers of an answer, but for those that differ on every answer. */
    const comparable = (res: { status: number; text: string; headers: Headers }) => [
      res.status,
      res.text,
      [...res.headers.entries()].filter(([name]) => name !== 'date' && name !== 'x-request-id'),
    ];
    const answeredFromMemory = async (route: string) => {
      const counter = stack.process.us.app.get(Metrics).registry.getSingleMetric(MEMORY_ANSWERS_METRIC);
      const values = counter ? (await counter.get()).values : [];
      return values.find((value) => value.labels.route === route)?.value ?? 0;
    };

    it('answers the capability document with the status, headers and bytes of the route, counted', async () => {
      const route = '/api/v1/agents/:agent_id/capabilities';
      const documents = stack.process.us.app.get(CapabilityDocuments, { strict: false });
      const agentId = await createAgent(us, app, { manifest: true });
      let round = 0;
      const get = (headers: Record<string, string> = {}) =>
        http('GET', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: { ...ip(round), ...headers } });
      // A document loaded while its own publication event fans out is not kept: wait for the event.
      await waitFor(async () => {
        round = 40 + ((round + 1) % 40);
        const before = await answeredFromMemory(route);
        await get();
        return (await answeredFromMemory(route)) > before;
      }, 10_000);
      round = 30;
      const before = await answeredFromMemory(route);
      documents.cache.clear();
      const fullFromRoute = await get();
      const etag = fullFromRoute.headers.get('etag')!;
      const fullFromMemory = await get();
      const notModifiedFromMemory = await get({ 'if-none-match': etag });
      documents.cache.clear();
      const notModifiedFromRoute = await get({ 'if-none-match': etag });
      expect(await answeredFromMemory(route)).toBe(before + 2);
      expect([fullFromRoute.status, notModifiedFromRoute.status]).toEqual([200, 304]);
      expect(comparable(fullFromMemory)).toEqual(comparable(fullFromRoute));
      expect(comparable(notModifiedFromMemory)).toEqual(comparable(notModifiedFromRoute));
      expect(fullFromMemory.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      // HEAD is left to the route.
      const head = await http('HEAD', `${us}/api/v1/agents/${agentId}/capabilities`, { headers: ip(30) });
      expect([head.status, head.headers.get('etag')]).toEqual([200, etag]);
      expect(await answeredFromMemory(route)).toBe(before + 2);
    });

    it('answers the JWKS with the status, headers and bytes of the route, and a rotation here at once', async () => {
      const route = '/.well-known/jwks.json';
      const keys = stack.process.us.app.get(SigningKeyStore);
      const get = (headers: Record<string, string> = {}) => http('GET', `${us}/.well-known/jwks.json`, { headers });
      const before = await answeredFromMemory(route);
      keys.reload();
      const fullFromRoute = await get();
      const etag = fullFromRoute.headers.get('etag')!;
      const fullFromMemory = await get();
      const notModifiedFromMemory = await get({ 'if-none-match': etag });
      keys.reload();
      const notModifiedFromRoute = await get({ 'if-none-match': etag });
      expect(await answeredFromMemory(route)).toBe(before + 2);
      expect([fullFromRoute.status, notModifiedFromRoute.status]).toEqual([200, 304]);
      expect(comparable(fullFromMemory)).toEqual(comparable(fullFromRoute));
      expect(comparable(notModifiedFromMemory)).toEqual(comparable(notModifiedFromRoute));
      // A rotation in this process: the very next request gets the new key set.
      expect((await get({ 'if-none-match': etag })).status).toBe(304);
      const rotated = await keys.rotate();
      const changed = await get({ 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect((changed.body as { keys: Array<{ kid: string }> }).keys[0]?.kid).toBe(rotated.kid);
    });
  });

  describe('GET /api/v1/oap/version', () => {
    it('lists every field of the spec', async () => {
      const res = await http('GET', `${us}/api/v1/oap/version`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        oap_ver: '1.0',
        supported: ['1.0'],
        current: '1.0',
        deprecated: [],
        regional_issuers: { us, eu: expect.any(String), ap: expect.any(String) },
        oap_conformance: 'conductor_full',
        conformance_capabilities: expect.arrayContaining(['cascade_15_step']),
        oversight_conformance: expect.any(String),
        oversight_conformance_levels: ['oversight_basic', 'oversight_full'],
        spec_url: expect.stringMatching(/^https:\/\//),
      });
      expect(Object.keys(res.body.chronicle_genesis_hashes as object).sort()).toEqual(['ap', 'eu', 'us']);
    });
  });
});
