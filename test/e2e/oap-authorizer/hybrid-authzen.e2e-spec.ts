import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, type HttpResult } from '@svc/testing';
import nacl from 'tweetnacl';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { bearer, createAgent, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from './support';

interface EngineCall {
  headers: IncomingMessage['headers'];
  body: {
    subject: { type: string; id: string; properties?: Record<string, unknown> };
    action: { name: string };
    resource: { type: string; id: string; properties?: Record<string, unknown> };
    context?: Record<string, unknown>;
  };
}

/**
 * A small policy engine speaking OpenID AuthZEN Authorization API 1.0: `POST /access/v1/evaluation`
 * answers `{decision}` — it permits `pay` up to 50.00 and nothing else, and requires its own bearer
 * token. `mode.delayMs` makes it slow (to pass the configured timeout), `mode.status` makes it fail.
 */
function startEngine(
  secret: string,
): Promise<{ url: string; calls: EngineCall[]; mode: { delayMs?: number; status?: number }; close(): Promise<void> }> {
  const calls: EngineCall[] = [];
  const mode: { delayMs?: number; status?: number } = {};
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const answer = (): void => {
        if (req.method !== 'POST' || req.url !== '/access/v1/evaluation') return void res.writeHead(404).end();
        if (req.headers.authorization !== `Bearer ${secret}`) return void res.writeHead(401).end();
        if (mode.status) return void res.writeHead(mode.status, { 'content-type': 'application/json' }).end('{"error":"engine failure"}');
        const body = JSON.parse(raw) as EngineCall['body'];
        calls.push({ headers: req.headers, body });
        const value = body.resource.properties?.value as { amount: string } | undefined;
        const decision = body.action.name === 'pay' && value !== undefined && Number(value.amount) <= 50;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ decision }));
      };
      if (mode.delayMs) setTimeout(answer, mode.delayMs);
      else answer();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        calls,
        mode,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** Claims of a compact JWS after checking its Ed25519 signature against the region's JWKS with tweetnacl. */
async function verifiedClaims(base: string, jws: string): Promise<Record<string, unknown>> {
  const [h, p, s] = jws.split('.') as [string, string, string];
  const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as { kid: string; typ: string };
  const jwks = await http<{ keys: Array<{ kid: string; x: string }> }>('GET', `${base}/.well-known/jwks.json`);
  const jwk = jwks.body.keys.find((k) => k.kid === header.kid);
  if (!jwk) throw new Error('kid not in JWKS');
  expect(nacl.sign.detached.verify(Buffer.from(`${h}.${p}`), Buffer.from(s, 'base64url'), Buffer.from(jwk.x, 'base64url'))).toBe(true);
  expect(header.typ).toBe('oap+jwt');
  return JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
}

/**
 * Spec: What the service does 5 (Hybrid: per-agent-class routing inside one application; Oversight:
 * the customer's engine decides, the service witnesses, `iss_role` witness); issue 17 Deliver 6.
 */
describe('hybrid application: POST /api/v1/grants routed by agent class, oversight classes decided by an AuthZEN engine', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const secret = `engine-secret-${randomUUID()}`;
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let other: TestApp;
  let key: AgentKey;
  let engine: Awaited<ReturnType<typeof startEngine>>;
  let attesterId: string;
  let attesterToken: string;
  let autonomousAgent: string;
  let assistantAgent: string;
  let db: DataSource;

  const engineUrl = () => `${us}/api/v1/oap/attestations/policy_engine`;
  const attestations = async (): Promise<number> =>
    Number(((await db.query(`SELECT count(*) AS n FROM oversight.attestations`)) as Array<{ n: string }>)[0]!.n);

  beforeAll(async () => {
    stack = await startRegions('oap_hybrid', { clock, regions: ['us'] });
    us = stack.url.us;
    db = stack.process.us.app.get(DataSource);
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'hybrid', environment: 'development', mode: 'hybrid' }));
    app = { id: created.application.id, token: created.apiToken };
    const second = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'other', environment: 'development', mode: 'hybrid' }));
    other = { id: second.application.id, token: second.apiToken };
    key = await newAgentKey();
    engine = await startEngine(secret);
    const attester = await http<{ trusted_attester: { id: string; token: string } }>('POST', `${us}/api/v1/trusted_attesters`, {
      headers: bearer(app.token),
      json: { name: 'customer engine' },
    });
    expect(attester.status).toBe(201);
    attesterId = attester.body.trusted_attester.id;
    attesterToken = attester.body.trusted_attester.token;
    // The autonomous class goes to the customer's engine; every other class stays with the cascade.
    const route = await http('PUT', `${us}/api/v1/oap/attestations/agent_class_routes`, {
      headers: bearer(app.token),
      json: { agent_class: 'autonomous', route: 'oversight' },
    });
    expect(route.status).toBe(200);
    autonomousAgent = await createAgent(us, app, { manifest: true, metadata: { agent_type: 'autonomous' } });
    assistantAgent = await createAgent(us, app, { manifest: true, metadata: { agent_type: 'assistant' } });
    await createAuthority(us, app, assistantAgent);
  });
  afterAll(async () => {
    await engine?.close();
    await stack?.close();
  });

  const ask = (agentId: string, amount: string, options: { idempotencyKey?: string } = {}): Promise<HttpResult> =>
    requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: amount, currency: 'EUR' } }), {
      now: clock.now(),
      ...options,
    });

  describe('configuring the engine (PUT/GET/DELETE /api/v1/oap/attestations/policy_engine)', () => {
    it('stores the engine with its credential encrypted and never shows the credential back', async () => {
      const put = await http('PUT', engineUrl(), {
        headers: bearer(app.token),
        json: { url: engine.url, attester_id: attesterId, credential_type: 'bearer', credential: secret, timeout_ms: 300 },
      });
      expect(put.status).toBe(200);
      expect(put.body).toEqual({
        policy_engine: {
          object: 'policy_engine',
          protocol: 'authzen-1.0',
          url: engine.url,
          evaluation_url: `${engine.url}/access/v1/evaluation`,
          attester_id: attesterId,
          credential_type: 'bearer',
          credential_header: null,
          credential_configured: true,
          timeout_ms: 300,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      });
      expect(put.text).not.toContain(secret);
      const read = await http('GET', engineUrl(), { headers: bearer(app.token) });
      expect(read.body).toEqual(put.body);
      const rows: Array<{ credential_enc: Buffer }> = await db.query(
        `SELECT credential_enc FROM oversight.policy_engines WHERE application_id = $1`,
        [app.id],
      );
      expect(rows[0]!.credential_enc.toString('latin1')).not.toContain(secret);
      expect((await http('GET', engineUrl(), { headers: bearer(other.token) })).status).toBe(404);
    });

    it.each([
      ['a non-http url', { url: 'ftp://engine.example' }, 422, 'url'],
      ['plain http to a public host', { url: 'http://engine.example' }, 422, 'url'],
      ['a url with a query', { url: 'https://engine.example/?x=1' }, 422, 'url'],
      ['bearer without credential (a missing field: 400)', { credential_type: 'bearer' }, 400, 'credential'],
      ['a credential without a type', { credential: 'x' }, 422, 'credential'],
      ['header type without header name (a missing field: 400)', { credential_type: 'header', credential: 'x' }, 400, 'credential_header'],
      [
        'a reserved header name',
        { credential_type: 'header', credential: 'x', credential_header: 'content-type' },
        422,
        'credential_header',
      ],
      ['a timeout below 100 ms', { timeout_ms: 50 }, 422, 'timeout_ms'],
      ['an unknown attester', { attester_id: 'tatr_us_unknown' }, 422, 'attester_id'],
      ['an unknown field', { weight: 1 }, 400, 'weight'],
    ])('refuses %s, naming the field', async (_case, override, status, field) => {
      const res = await http('PUT', engineUrl(), {
        headers: bearer(other.token),
        json: { url: engine.url, attester_id: attesterId, ...override },
      });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ detail: { field } });
    });

    it("refuses another application's attester and answers 401 without an API token", async () => {
      const res = await http('PUT', engineUrl(), { headers: bearer(other.token), json: { url: engine.url, attester_id: attesterId } });
      expect(res.body).toMatchObject({ reason_code: 'policy_engine_attester_invalid', detail: { field: 'attester_id' } });
      expect((await http('GET', engineUrl())).status).toBe(401);
    });
  });

  describe('routing', () => {
    it('runs the cascade for a class routed to conductor (the engine is not asked)', async () => {
      const before = engine.calls.length;
      const res = await ask(assistantAgent, '25.50');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ decision: 'allow', grant_id: expect.stringMatching(/^ath_us_/), token_type: 'DPoP' });
      expect(engine.calls.length).toBe(before);
    });

    it('allow: the engine allows, the answer is witnessed and the witness receipt verifies', async () => {
      const res = await ask(autonomousAgent, '25.50');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        decision: 'allow',
        route: 'oversight',
        attestation_id: expect.stringMatching(/^att_us_/),
        witness_receipt: expect.any(String),
        sequence_number: expect.any(Number),
        policy_ref: `authzen:${engine.url}`,
        iss: us,
        oap_ver: '1.0',
        valid_until: '2026-03-04T12:00:00.000Z',
      });
      const call = engine.calls[engine.calls.length - 1]!;
      expect(call.headers.authorization).toBe(`Bearer ${secret}`);
      expect(call.body).toMatchObject({
        subject: { type: 'agent', id: autonomousAgent, properties: { agent_class: 'autonomous', application_id: app.id } },
        action: { name: 'pay' },
        resource: { properties: { scopes: ['payments:write'], value: { amount: '25.50', currency: 'EUR' } } },
      });
      const claims = await verifiedClaims(us, res.body.witness_receipt as string);
      expect(claims).toMatchObject({
        iss_role: 'witness',
        decision: 'allow',
        sub: res.body.attestation_id,
        policy_ref: `authzen:${engine.url}`,
        attestation_digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      expect(claims.jti).toMatch(/^wrec_/);
      // The engine's own view of the attestation: witnessed in the name of its trusted attester.
      const read = await http('GET', `${us}/api/v1/oap/attestations/${res.body.attestation_id as string}`, {
        headers: bearer(attesterToken),
      });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ attestation: { agent_class: 'autonomous', action_class: 'pay', decision: 'allow' } });
    });

    it('deny: the engine denies, witnessed, 403 oversight_denied / policy_engine_denied', async () => {
      const res = await ask(autonomousAgent, '75.00');
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: expect.any(String),
        reason_code: 'policy_engine_denied',
        decision: 'deny',
        denial_category: 'oversight_denied',
        route: 'oversight',
        attestation_id: expect.stringMatching(/^att_us_/),
        witness_receipt: expect.any(String),
      });
      expect(await verifiedClaims(us, res.body.witness_receipt as string)).toMatchObject({
        iss_role: 'witness',
        decision: 'deny',
        sub: res.body.attestation_id,
      });
    });

    it('engine timeout: fails closed (403 policy_engine_unavailable, reason timeout) within the timeout, nothing witnessed', async () => {
      const before = await attestations();
      engine.mode.delayMs = 2_000;
      const started = Date.now();
      const res = await ask(autonomousAgent, '10.00');
      const elapsed = Date.now() - started;
      engine.mode.delayMs = undefined;
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: expect.any(String),
        reason_code: 'policy_engine_unavailable',
        detail: { reason: 'timeout' },
        decision: 'deny',
        denial_category: 'oversight_denied',
        route: 'oversight',
      });
      expect(elapsed).toBeLessThan(1_800);
      expect(await attestations()).toBe(before);
      const decisions: Array<{ decision: string; denial_category: string; reason_code: string }> = await db.query(
        `SELECT decision, denial_category, reason_code FROM oap.decisions WHERE agent_id = $1 ORDER BY created_at DESC, id LIMIT 5`,
        [autonomousAgent],
      );
      expect(decisions).toContainEqual({ decision: 'deny', denial_category: 'oversight_denied', reason_code: 'policy_engine_unavailable' });
    });

    it('engine error: fails closed (reason invalid_response)', async () => {
      engine.mode.status = 500;
      const res = await ask(autonomousAgent, '10.00');
      engine.mode.status = undefined;
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        reason_code: 'policy_engine_unavailable',
        detail: { reason: 'invalid_response' },
        denial_category: 'oversight_denied',
      });
    });

    it('replays the stored answer for the same Idempotency-Key without asking the engine again', async () => {
      const idempotencyKey = randomUUID();
      const first = await ask(autonomousAgent, '12.00', { idempotencyKey });
      const calls = engine.calls.length;
      const again = await ask(autonomousAgent, '12.00', { idempotencyKey });
      expect(again.status).toBe(first.status);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(engine.calls.length).toBe(calls);
    });

    it('without an engine the oversight class is denied policy_engine_not_configured', async () => {
      expect((await http('DELETE', engineUrl(), { headers: bearer(app.token) })).status).toBe(204);
      const res = await ask(autonomousAgent, '10.00');
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        reason_code: 'policy_engine_not_configured',
        detail: { reason: 'no_engine' },
        decision: 'deny',
        denial_category: 'oversight_denied',
      });
      expect((await http('DELETE', engineUrl(), { headers: bearer(app.token) })).status).toBe(404);
    });
  });
});
