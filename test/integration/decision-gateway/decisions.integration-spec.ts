import { randomUUID, createHash } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventPublisher } from '@svc/bus';
import { FakeClock } from '@svc/config';
import { ApprovalRequestedSchema, EventMetaSchema, decodeEvent, eventSubject } from '@svc/contracts';
import { consentRecordsFeature } from '@svc/consent-records';
import {
  CONSENT_SESSIONS_DEPRECATED_AT,
  CONSENT_SESSIONS_SUNSET,
  CreateApplication,
  CreateApplicationCommand,
  ExpireDueSessions,
  decisionGatewayFeature,
} from '@svc/decision-gateway';
import { newApprovalSessionToken } from '@svc/ids';
import { startProcess, type RunningProcess } from '@svc/server';
import {
  createTestDatabase,
  deleteTestStreams,
  http,
  testEnv,
  uniqueBusPrefix,
  waitFor,
  type HttpResult,
  type TestDatabase,
} from '@svc/testing';

type Json = Record<string, unknown>;
const BASE = 'https://us.example.test';
const ORIGIN = 'https://shop.example.com';

/**
 * Spec: What the service does 1–2 and 9; Decision session; Consent token / session status;
 * Signing decision; Agreement quorum; Decisions and consent endpoints; Versioning 2–3; Limits;
 * Authentication 2–3; Events. Issue 4, "Done when".
 */
describe('decision sessions over HTTP', () => {
  const clock = new FakeClock('2026-03-01T10:00:00.000Z');
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;
  let url: string;
  let app: { id: string; token: string; pk: string };
  let other: { id: string; token: string; pk: string };
  let flows: { standard: string; informed: string; draft: string; foreign: string };
  const events: Array<{ type: string; payload: Json }> = [];
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });
  const pkHeader = (k: string, origin: string = ORIGIN) => ({ 'x-publishable-key': k, origin });

  async function newApp(name: string) {
    const created = await running.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: created.application.id, token: created.apiToken, pk: created.publishableKey };
  }

  async function activeFlow(token: string, consentPath: 'standard' | 'informed', activate = true): Promise<string> {
    const res = await http<{ id: string }>('POST', `${url}/api/v1/flows`, {
      headers: auth(token),
      json: {
        name: `${consentPath} flow`,
        locale: 'en',
        presentation: { title: 'Share your email' },
        purposes: [
          { key: 'newsletter', label: 'Newsletter' },
          { key: 'offers', label: 'Offers' },
        ],
        consent_path: consentPath,
        consent_duration: 'P1Y',
      },
    });
    expect(res.status).toBe(201);
    if (activate) expect((await http('POST', `${url}/api/v1/flows/${res.body.id}/activate`, { headers: auth(token) })).status).toBe(200);
    return res.body.id;
  }

  const mint = (json: Json, headers: Record<string, string> = auth(app.token)) =>
    http('POST', `${url}/api/v1/decisions`, { headers, json });
  const move = (token: string, json: Json) => http('POST', `${url}/api/v1/decisions/${token}/transitions`, { json });
  const eventsOf = (type: string, sessionToken: string) => events.filter((e) => e.type === type && e.payload.sessionToken === sessionToken);

  async function mintOk(json: Json): Promise<{ token: string; body: Json }> {
    const res = await mint(json);
    expect(res.status).toBe(201);
    return { token: res.body.session_token as string, body: res.body };
  }

  async function walk(token: string, actions: Array<string | Json>): Promise<HttpResult> {
    let last: HttpResult | undefined;
    for (const step of actions) {
      last = await move(token, typeof step === 'string' ? { action: step } : step);
      expect(last.status).toBe(200);
    }
    return last!;
  }

  beforeAll(async () => {
    database = await createTestDatabase('decisions');
    prefix = uniqueBusPrefix();
    running = await startProcess({
      features: [decisionGatewayFeature, consentRecordsFeature],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: BASE }),
      clock,
    });
    url = running.url;
    app = await newApp('shop');
    other = await newApp('other');
    const origin = await http('POST', `${url}/api/v1/applications/${app.id}/allowed_origins`, {
      headers: auth(app.token),
      json: { allowed_origin: { origin: ORIGIN } },
    });
    expect(origin.status).toBe(201);
    flows = {
      standard: await activeFlow(app.token, 'standard'),
      informed: await activeFlow(app.token, 'informed'),
      draft: await activeFlow(app.token, 'standard', false),
      foreign: await activeFlow(other.token, 'standard'),
    };
    const bus = running.app.get(BusConnection);
    const subscription = bus.nc.subscribe(`${prefix}.us.evt.>`);
    void (async () => {
      for await (const msg of subscription) {
        const type = msg.headers?.get('Svc-Event-Type') ?? '';
        events.push({ type, payload: decodeEvent(type, msg.data, bus.personalData) as Json });
      }
    })();
  });

  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  describe('POST /api/v1/decisions', () => {
    it('mints a consent session with the kind-uniform body', async () => {
      const res = await mint({
        kind: 'consent',
        flow_id: flows.standard,
        delivery_mode: 'embed',
        embed_origin: ORIGIN,
        principal_id: 'user-1',
      });
      expect(res.status).toBe(201);
      const token = res.body.session_token as string;
      expect(token).toMatch(/^dts_[A-Za-z0-9_-]{43}$/);
      expect(res.body).toEqual({
        object: 'decision_session',
        session_token: token,
        kind: 'consent',
        status: 'pending',
        decision_url: `${BASE}/decisions/${token}`,
        embed_url: `${BASE}/decisions/${token}/embed`,
        deadline: new Date(clock.now().getTime() + 900_000).toISOString(),
        delivery_mode: 'embed',
        flow_id: flows.standard,
        flow_version: 1,
        created_at: clock.now().toISOString(),
      });
    });

    it('mints approval and signature sessions with the same keys (embed_url null, approval_ttl_at on approvals)', async () => {
      const approval = await mintOk({
        kind: 'approval',
        principal_id: 'boss',
        trigger_type: 'value',
        proposal: { action: 'pay', bounds: { max: 100 } },
        ttl_seconds: 600,
      });
      expect(approval.body).toMatchObject({ kind: 'approval', status: 'pending', embed_url: null, delivery_mode: 'direct', flow_id: null });
      expect(approval.body.approval_ttl_at).toBe(approval.body.deadline);
      const signature = await mintOk({ kind: 'signature_request', principal_id: 'signer', proposal: { document: 'nda.pdf' } });
      expect(signature.body).toMatchObject({ kind: 'signature_request', status: 'pending', embed_url: null });
      expect(Object.keys(signature.body)).toEqual(
        expect.arrayContaining(['session_token', 'decision_url', 'embed_url', 'deadline', 'kind', 'status']),
      );
    });

    it('refuses a draft flow (409 flow_not_active), an unknown or foreign flow (404), a malformed flow id and a consent without flow (422)', async () => {
      const draft = await mint({ kind: 'consent', flow_id: flows.draft });
      expect(draft.status).toBe(409);
      expect(draft.body.reason_code).toBe('flow_not_active');
      for (const flowId of [flows.foreign, 'flw_us_abcdefghijklmnopqrst']) {
        const res = await mint({ kind: 'consent', flow_id: flowId });
        expect(res.status).toBe(404);
        expect(res.body.reason_code).toBe('flow_not_found');
      }
      const malformed = await mint({ kind: 'consent', flow_id: 'garbage' });
      expect([malformed.status, malformed.body]).toEqual([
        422,
        expect.objectContaining({ reason_code: 'validation_failed', detail: expect.objectContaining({ field: 'flow_id' }) }),
      ]);
      const none = await mint({ kind: 'consent' });
      expect(none.status).toBe(422);
      expect(none.body.reason_code).toBe('flow_required');
    });

    it('refuses fields of another kind and an impossible quorum (422)', async () => {
      const cases: Array<[Json, string]> = [
        [{ kind: 'consent', flow_id: flows.standard, trigger_type: 'value' }, 'field_not_applicable'],
        [{ kind: 'approval', principal_id: 'a', flow_id: flows.standard }, 'field_not_applicable'],
        [{ kind: 'approval' }, 'participant_required'],
        [{ kind: 'approval', participants: ['a', 'b'], quorum: { type: 'threshold', threshold: 3 } }, 'quorum_invalid'],
        [{ kind: 'approval', participants: ['a', 'b'], quorum: { type: 'threshold' } }, 'quorum_invalid'],
        [{ kind: 'approval', participants: ['a', 'b'], quorum: { type: 'all', threshold: 1 } }, 'quorum_invalid'],
        [{ kind: 'consent', flow_id: flows.standard, embed_origin: 'https://shop.example.com/path' }, 'embed_origin_invalid'],
      ];
      for (const [json, reason] of cases) {
        const res = await mint(json);
        expect([res.status, res.body.reason_code]).toEqual([422, reason]);
      }
    });

    it.each([
      ['an unknown field', { kind: 'consent', flow_id: 'x', colour: 1 }, 400, 'invalid_request'],
      ['a missing kind', { flow_id: 'x' }, 400, 'invalid_request'],
      ['a wrong-type kind', { kind: 7 }, 400, 'invalid_request'],
      ['an unknown kind', { kind: 'vote' }, 422, 'validation_failed'],
      ['an unknown delivery mode', { kind: 'consent', flow_id: 'x', delivery_mode: 'fax' }, 422, 'validation_failed'],
      ['a ttl below 30 s', { kind: 'approval', principal_id: 'a', ttl_seconds: 1 }, 422, 'validation_failed'],
      ['a string ttl', { kind: 'approval', principal_id: 'a', ttl_seconds: '60' }, 400, 'invalid_request'],
      ['a proposal that is not an object', { kind: 'approval', principal_id: 'a', proposal: 'pay' }, 400, 'invalid_request'],
      ['duplicate participants', { kind: 'approval', participants: ['a', 'a'] }, 422, 'validation_failed'],
      ['an unknown quorum type', { kind: 'approval', participants: ['a'], quorum: { type: 'most' } }, 422, 'validation_failed'],
      ['a principal id with spaces', { kind: 'approval', principal_id: 'a b' }, 422, 'validation_failed'],
    ])('answers 4xx for %s', async (_case, json, status, reason) => {
      const res = await mint(json);
      expect([res.status, res.body.reason_code]).toEqual([status, reason]);
    });

    it('answers 400 for malformed JSON and an oversized body, 401 without credentials', async () => {
      const malformed = await http('POST', `${url}/api/v1/decisions`, {
        headers: { ...auth(app.token), 'content-type': 'application/json' },
        raw: '{"kind"',
      });
      expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
      const huge = await mint({ kind: 'approval', principal_id: 'a', proposal: { blob: 'x'.repeat(1_100_000) } });
      expect([huge.status, huge.body.reason_code]).toEqual([413, 'payload_too_large']);
      const none = await http('POST', `${url}/api/v1/decisions`, { json: { kind: 'consent', flow_id: flows.standard } });
      expect([none.status, none.body.reason_code]).toEqual([401, 'unauthenticated']);
    });
  });

  describe('publishable key (Authentication rules 2–3)', () => {
    it('creates a consent session for an allowed embed_origin', async () => {
      const res = await mint({ kind: 'consent', flow_id: flows.standard, delivery_mode: 'embed', embed_origin: ORIGIN }, pkHeader(app.pk));
      expect(res.status).toBe(201);
      expect(res.body.kind).toBe('consent');
    });

    it('refuses an approval or signature session with 403 kind_not_allowed_for_publishable_key', async () => {
      for (const kind of ['approval', 'signature_request']) {
        const res = await mint({ kind, principal_id: 'a', embed_origin: ORIGIN }, pkHeader(app.pk));
        expect([res.status, res.body.reason_code]).toEqual([403, 'kind_not_allowed_for_publishable_key']);
      }
    });

    it('refuses a missing or unregistered embed_origin with 403 embed_origin_not_allowed', async () => {
      for (const embed_origin of [undefined, 'https://evil.example.com', 'http://localhost:3000']) {
        const res = await mint({ kind: 'consent', flow_id: flows.standard, embed_origin }, pkHeader(app.pk));
        expect([res.status, res.body.reason_code]).toEqual([403, 'embed_origin_not_allowed']);
      }
      const viaToken = await mint({ kind: 'consent', flow_id: flows.standard, embed_origin: 'https://evil.example.com' });
      expect([viaToken.status, viaToken.body.reason_code]).toEqual([403, 'embed_origin_not_allowed']);
    });

    it('refuses a mint whose Origin header is absent or not an allowed origin with 403 origin_not_allowed', async () => {
      const body = { kind: 'consent', flow_id: flows.standard, delivery_mode: 'embed', embed_origin: ORIGIN };
      const refusals = [
        await mint(body, { 'x-publishable-key': app.pk }),
        await mint(body, pkHeader(app.pk, 'https://evil.example')),
        await mint(body, pkHeader(app.pk, 'null')),
        await mint(body, pkHeader(app.pk, `${ORIGIN}/path`)),
        await http('POST', `${url}/api/v1/consent_sessions`, {
          headers: { 'x-publishable-key': app.pk },
          json: { flow_id: flows.standard, embed_origin: ORIGIN },
        }),
      ];
      expect(refusals.map((r) => [r.status, r.body.reason_code])).toEqual(Array(5).fill([403, 'origin_not_allowed']));
      // Server-side calls (API token) are not browser calls: no Origin needed.
      expect((await mint(body)).status).toBe(201);
    });

    it('refuses a mint naming the person with 422 naming principal_id', async () => {
      const res = await mint(
        { kind: 'consent', flow_id: flows.standard, delivery_mode: 'embed', embed_origin: ORIGIN, principal_id: 'victim-42' },
        pkHeader(app.pk),
      );
      expect([res.status, res.body.reason_code, (res.body.detail as Json).field]).toEqual([
        422,
        'principal_not_allowed_for_publishable_key',
        'principal_id',
      ]);
      expect(res.body.message).toContain('principal_id');
    });

    it("binds the person from a single-use principal assertion issued to the application's server", async () => {
      const issued = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
        headers: auth(app.token),
        json: { principal_id: 'user-77', flow_id: flows.standard },
      });
      expect(issued.status).toBe(201);
      expect(issued.body).toMatchObject({
        object: 'principal_assertion',
        principal_id: 'user-77',
        flow_id: flows.standard,
        expires_at: new Date(clock.now().getTime() + 120_000).toISOString(),
      });
      const assertion = issued.body.principal_assertion as string;
      expect(assertion).toMatch(/^pas_[A-Za-z0-9_-]{43}$/);
      const body = {
        kind: 'consent',
        flow_id: flows.standard,
        delivery_mode: 'embed',
        embed_origin: ORIGIN,
        principal_assertion: assertion,
      };
      const minted = await mint(body, pkHeader(app.pk));
      expect([minted.status, minted.body.reason_code]).toEqual([201, undefined]);
      const view = await http('GET', `${url}/api/v1/decisions/${minted.body.session_token}`, { headers: auth(app.token) });
      expect(view.body).toMatchObject({ principal_id: 'user-77', principal_binding: 'principal_assertion' });
      // Single use; another application's key, a publishable key asking for one, an expired one: refused.
      const replay = await mint(body, pkHeader(app.pk));
      expect([replay.status, replay.body.reason_code, (replay.body.detail as Json).field]).toEqual([
        403,
        'principal_assertion_invalid',
        'principal_assertion',
      ]);
      const byKey = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
        headers: pkHeader(app.pk),
        json: { principal_id: 'user-77' },
      });
      expect([byKey.status, byKey.body.reason_code]).toEqual([403, 'publishable_key_not_allowed']);
      const foreign = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
        headers: auth(other.token),
        json: { principal_id: 'user-77' },
      });
      const crossed = await mint({ ...body, principal_assertion: foreign.body.principal_assertion }, pkHeader(app.pk));
      expect([crossed.status, crossed.body.reason_code]).toEqual([403, 'principal_assertion_invalid']);
      const otherFlow = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
        headers: auth(app.token),
        json: { principal_id: 'user-77', flow_id: flows.informed },
      });
      expect((await mint({ ...body, principal_assertion: otherFlow.body.principal_assertion }, pkHeader(app.pk))).body.reason_code).toBe(
        'principal_assertion_invalid',
      );
      const late = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
        headers: auth(app.token),
        json: { principal_id: 'user-77', ttl_seconds: 30 },
      });
      clock.advance(30_000);
      expect((await mint({ ...body, principal_assertion: late.body.principal_assertion }, pkHeader(app.pk))).body.reason_code).toBe(
        'principal_assertion_invalid',
      );
      const both = await mint({
        kind: 'consent',
        flow_id: flows.standard,
        principal_id: 'a',
        principal_assertion: late.body.principal_assertion,
      });
      expect([both.status, both.body.reason_code]).toEqual([422, 'principal_conflict']);
    });

    it('refuses reading anything with 403 publishable_key_not_allowed, and an unknown key with 401', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      const reads: Array<[string, string, Json?]> = [
        ['GET', `/api/v1/decisions/${token}`],
        ['POST', `/api/v1/decisions/${token}/exchange`, { exchange_token: 'x' }],
        ['POST', `/api/v1/decisions/${token}/revoke`],
        ['POST', '/api/v1/decisions/consent_tokens/verify', { consent_token: 'x' }],
        ['GET', '/api/v1/inbox?principal_id=user-1'],
        ['GET', '/api/v1/flows'],
      ];
      for (const [method, path, json] of reads) {
        const res = await http(method, `${url}${path}`, { headers: pkHeader(app.pk), json });
        expect([path, res.status, res.body.reason_code]).toEqual([path, 403, 'publishable_key_not_allowed']);
      }
      const unknown = await mint(
        { kind: 'consent', flow_id: flows.standard, embed_origin: ORIGIN },
        pkHeader('pk_test_0000000000000000000000000000000A'),
      );
      expect([unknown.status, unknown.body.reason_code]).toEqual([401, 'invalid_token']);
    });
  });

  describe('consent: standard and informed-consent paths, consent token, exchange, revocation', () => {
    it('walks the standard path pending → authenticating → verifying → reviewing → fulfilled', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard, principal_id: 'user-42' });
      const state = await http('GET', `${url}/api/v1/decisions/${token}/state`);
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({
        kind: 'consent',
        status: 'pending',
        consent_path: 'standard',
        allowed_actions: ['sign_in', 'decline'],
      });
      const statuses: string[] = [];
      for (const step of [{ action: 'sign_in' }, { action: 'start_checks' }, { action: 'review_terms' }]) {
        const res = await move(token, step);
        expect(res.status).toBe(200);
        statuses.push(res.body.status as string);
      }
      expect(statuses).toEqual(['authenticating', 'verifying', 'reviewing']);
      const done = await move(token, { action: 'complete' });
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'fulfilled', outcome: 'granted', allowed_actions: ['revoke'] });
      expect(done.body.consent_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(done.body.exchange_token).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const granted = await waitFor(() => eventsOf('consent_session.granted', token)[0]);
      expect(granted.payload).toMatchObject({
        flowId: flows.standard,
        flowVersion: 1,
        consentToken: done.body.consent_token,
        userIdentifier: 'user-42',
        principalBinding: 'api_token',
        purposes: ['newsletter', 'offers'],
      });
      expect((granted.payload.meta as Json).applicationId).toBe(app.id);

      // Verify once: valid and cleared; again: expired.
      const first = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: done.body.consent_token },
      });
      expect([first.status, first.body]).toEqual([200, { valid: true, status: 'fulfilled' }]);
      const second = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: done.body.consent_token },
      });
      expect([second.status, second.body]).toEqual([200, { valid: false, status: 'expired' }]);

      // Exchange once, server-side.
      const exchanged = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: done.body.exchange_token },
      });
      expect(exchanged.status).toBe(200);
      expect(exchanged.body).toMatchObject({
        object: 'decision_outcome',
        session_token: token,
        kind: 'consent',
        status: 'fulfilled',
        outcome: 'granted',
        flow_id: flows.standard,
        flow_version: 1,
        principal_id: 'user-42',
        principal_binding: 'api_token',
        purposes: ['newsletter', 'offers'],
      });
      const replay = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: done.body.exchange_token },
      });
      expect([replay.status, replay.body.reason_code]).toEqual([409, 'exchange_token_used']);

      // Later revocation: fulfilled → revoked, consent_session.revoked.
      const revoked = await http('POST', `${url}/api/v1/decisions/${token}/revoke`, { headers: auth(app.token) });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ status: 'revoked', outcome: 'granted' });
      const event = await waitFor(() => eventsOf('consent_session.revoked', token)[0]);
      expect(event.payload).toMatchObject({ flowId: flows.standard, userIdentifier: 'user-42', revokedBy: 'application' });
      const again = await http('POST', `${url}/api/v1/decisions/${token}/revoke`, { headers: auth(app.token) });
      expect([again.status, again.body.reason_code]).toEqual([409, 'transition_not_allowed']);
    });

    it('walks the informed-consent path pending → informed → evidenced → fulfilled, and the person may revoke', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.informed, principal_id: 'user-7' });
      expect((await move(token, { action: 'sign_in' })).body.reason_code).toBe('transition_not_allowed');
      for (const principal_id of ['user-8', 'user-7']) {
        const named = await move(token, { action: 'present_disclosures', principal_id });
        expect([named.status, named.body.reason_code, (named.body.detail as Json).field]).toEqual([
          422,
          'principal_not_settable',
          'principal_id',
        ]);
      }
      const informed = await move(token, { action: 'present_disclosures' });
      expect(informed.body).toMatchObject({ status: 'informed', allowed_actions: ['capture_evidence', 'decline'] });
      const evidenced = await move(token, { action: 'capture_evidence', evidence: { type: 'comprehension_check', passed: true } });
      expect(evidenced.body.status).toBe('evidenced');
      const done = await move(token, { action: 'complete' });
      expect(done.body).toMatchObject({ status: 'fulfilled', outcome: 'granted' });
      expect(typeof done.body.consent_token).toBe('string');
      await waitFor(() => eventsOf('consent_session.granted', token)[0]);
      const verify = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: done.body.consent_token },
      });
      expect(verify.body).toEqual({ valid: true, status: 'fulfilled' });
      const withdrawn = await move(token, { action: 'revoke' });
      expect(withdrawn.body.status).toBe('revoked');
      const event = await waitFor(() => eventsOf('consent_session.revoked', token)[0]);
      expect(event.payload).toMatchObject({ userIdentifier: 'user-7', revokedBy: 'principal' });
    });

    it('refuses illegal transitions with 409 transition_not_allowed and applies nothing', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      for (const action of ['complete', 'review_terms', 'present_disclosures', 'capture_evidence', 'revoke', 'approve', 'sign']) {
        const res = await move(token, { action });
        expect([action, res.status, res.body.reason_code]).toEqual([action, 409, 'transition_not_allowed']);
      }
      const state = await http('GET', `${url}/api/v1/decisions/${token}`, { headers: auth(app.token) });
      expect(state.body).toMatchObject({ status: 'pending', outcome: null });
    });

    it('answers expired for a consent token verified first after 5 minutes', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      const done = await walk(token, ['sign_in', 'start_checks', 'review_terms', 'complete']);
      clock.advance(5 * 60_000);
      const late = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: done.body.consent_token },
      });
      expect(late.body).toEqual({ valid: false, status: 'expired' });
    });

    it('declines: status expired, outcome declined, consent_session.denied, exchange reports it', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard, principal_id: 'user-9' });
      await walk(token, ['sign_in']);
      const declined = await move(token, { action: 'decline' });
      expect(declined.body).toMatchObject({ status: 'expired', outcome: 'declined', allowed_actions: [] });
      expect(declined.body.consent_token).toBeUndefined();
      const event = await waitFor(() => eventsOf('consent_session.denied', token)[0]);
      expect(event.payload).toMatchObject({ flowId: flows.standard, userIdentifier: 'user-9' });
      const exchanged = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: declined.body.exchange_token },
      });
      expect(exchanged.body).toMatchObject({ outcome: 'declined', purposes: [] });
    });

    it('refuses verification of an unknown or foreign consent token (404) and exchange before completion or with a wrong token', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      const done = await walk(token, ['sign_in', 'start_checks', 'review_terms', 'complete']);
      const cases: Array<[string, string]> = [
        ['A'.repeat(43), app.token],
        [done.body.consent_token as string, other.token],
      ];
      for (const [consentToken, apiToken] of cases) {
        const res = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
          headers: auth(apiToken),
          json: { consent_token: consentToken },
        });
        expect([res.status, res.body.reason_code]).toEqual([404, 'consent_token_not_found']);
      }
      const wrong = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: 'B'.repeat(43) },
      });
      expect([wrong.status, wrong.body.reason_code]).toEqual([403, 'exchange_token_invalid']);
      const foreign = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(other.token),
        json: { exchange_token: done.body.exchange_token },
      });
      expect([foreign.status, foreign.body.reason_code]).toEqual([404, 'session_not_found']);
      const open = await mintOk({ kind: 'consent', flow_id: flows.standard });
      const early = await http('POST', `${url}/api/v1/decisions/${open.token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: 'x' },
      });
      expect([early.status, early.body.reason_code]).toEqual([409, 'exchange_not_ready']);
    });
  });

  describe('deadlines (Clock-driven)', () => {
    it('expires a session whose deadline passed: reads show expired, moves answer 410 session_expired', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard, ttl_seconds: 60 });
      await walk(token, ['sign_in']);
      clock.advance(59_000);
      expect((await http('GET', `${url}/api/v1/decisions/${token}/state`)).body.status).toBe('authenticating');
      clock.advance(1_000);
      const state = await http('GET', `${url}/api/v1/decisions/${token}/state`);
      expect(state.body).toMatchObject({ status: 'expired', outcome: 'expired', allowed_actions: [] });
      const late = await move(token, { action: 'start_checks' });
      expect([late.status, late.body.reason_code]).toEqual([410, 'session_expired']);
    });

    it('sweeps due sessions without a read; an expired signing decision publishes signature.expired', async () => {
      const signature = await mintOk({ kind: 'signature_request', principal_id: 'signer', ttl_seconds: 30 });
      const approval = await mintOk({ kind: 'approval', principal_id: 'boss', ttl_seconds: 30 });
      clock.advance(31_000);
      expect(await running.app.get(ExpireDueSessions).execute()).toBeGreaterThanOrEqual(2);
      const event = await waitFor(() => eventsOf('signature.expired', signature.token)[0]);
      expect(event.payload).toMatchObject({ outcome: 'expired', signatures: 0 });
      const read = await http('GET', `${url}/api/v1/decisions/${approval.token}`, { headers: auth(app.token) });
      expect(read.body).toMatchObject({ status: 'expired', outcome: 'expired' });
      const vote = await move(approval.token, { action: 'approve' });
      expect([vote.status, vote.body.reason_code]).toEqual([410, 'session_expired']);
      expect(await running.app.get(ExpireDueSessions).execute()).toBe(0);
    });
  });

  describe('approval: approve / deny / counter and quorum', () => {
    it.each([
      ['approve', 'approved', 'approval.granted'],
      ['deny', 'denied', 'approval.denied'],
    ])('a single approver may %s: %s, %s published', async (action, status, type) => {
      const { token } = await mintOk({
        kind: 'approval',
        principal_id: 'boss',
        trigger_type: 'value',
        reference: 'ath_us_ref',
        proposal: { action: 'pay', bounds: { max: 100 } },
      });
      const res = await move(token, { action });
      expect(res.body).toMatchObject({ status, outcome: status, allowed_actions: [] });
      expect(typeof res.body.exchange_token).toBe('string');
      const event = await waitFor(() => eventsOf(type, token)[0]);
      expect(event.payload).toMatchObject({
        reference: 'ath_us_ref',
        principalId: 'boss',
        triggerType: 'value',
        outcome: status,
        quorumType: 'all',
        required: 1,
      });
    });

    it('counters with a counter_proposal carried by approval.countered and the exchange', async () => {
      const { token } = await mintOk({ kind: 'approval', principal_id: 'boss' });
      const missing = await move(token, { action: 'counter' });
      expect([missing.status, missing.body.reason_code]).toEqual([422, 'counter_proposal_required']);
      const res = await move(token, { action: 'counter', counter_proposal: { max: 50 } });
      expect(res.body).toMatchObject({ status: 'countered' });
      const event = await waitFor(() => eventsOf('approval.countered', token)[0]);
      expect(JSON.parse(event.payload.counterProposalJson as string)).toEqual({ max: 50 });
      const exchanged = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: res.body.exchange_token },
      });
      expect(exchanged.body).toMatchObject({ outcome: 'countered', counter_proposal: { max: 50 } });
    });

    it('aggregates a three-approver majority into one approval.granted', async () => {
      const { token } = await mintOk({
        kind: 'approval',
        participants: ['ann', 'bob', 'cy'],
        quorum: { type: 'majority' },
        trigger_type: 'escalation',
      });
      const first = await move(token, { action: 'approve', participant_id: 'ann' });
      expect(first.body).toMatchObject({ status: 'pending', quorum: { type: 'majority', required: 2, participants: 3 } });
      expect(first.body.exchange_token).toBeUndefined();
      const second = await move(token, { action: 'deny', participant_id: 'bob' });
      expect(second.body.status).toBe('pending');
      const third = await move(token, { action: 'approve', participant_id: 'cy' });
      expect(third.body.status).toBe('approved');
      const event = await waitFor(() => eventsOf('approval.granted', token)[0]);
      expect(event.payload).toMatchObject({
        outcome: 'approved',
        quorumType: 'majority',
        required: 2,
        approvals: 2,
        denials: 1,
        counters: 0,
      });
      const late = await move(token, { action: 'deny', participant_id: 'bob' });
      expect([late.status, late.body.reason_code]).toEqual([409, 'transition_not_allowed']);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(events.filter((e) => e.type.startsWith('approval.') && e.payload.sessionToken === token)).toHaveLength(1);
    });

    it('resolves a three-approver majority as denied once approval is out of reach, and as countered when counters prevail', async () => {
      const denied = await mintOk({ kind: 'approval', participants: ['ann', 'bob', 'cy'], quorum: { type: 'majority' } });
      await move(denied.token, { action: 'deny', participant_id: 'ann' });
      expect((await move(denied.token, { action: 'deny', participant_id: 'cy' })).body.status).toBe('denied');
      await waitFor(() => eventsOf('approval.denied', denied.token)[0]);

      const countered = await mintOk({ kind: 'approval', participants: ['ann', 'bob', 'cy'], quorum: { type: 'majority' } });
      await move(countered.token, { action: 'counter', participant_id: 'ann', counter_proposal: { max: 10 } });
      const res = await move(countered.token, { action: 'counter', participant_id: 'bob', counter_proposal: { max: 20 } });
      expect(res.body.status).toBe('countered');
      const event = await waitFor(() => eventsOf('approval.countered', countered.token)[0]);
      expect(event.payload).toMatchObject({ counters: 2, approvals: 0 });
      expect(JSON.parse(event.payload.counterProposalJson as string)).toEqual({ max: 20 });
    });

    it('honours all and threshold quorums', async () => {
      const all = await mintOk({ kind: 'approval', participants: ['ann', 'bob'], quorum: { type: 'all' } });
      expect((await move(all.token, { action: 'approve', participant_id: 'ann' })).body.status).toBe('pending');
      expect((await move(all.token, { action: 'approve', participant_id: 'bob' })).body.status).toBe('approved');
      const threshold = await mintOk({
        kind: 'approval',
        participants: ['ann', 'bob', 'cy', 'dee'],
        quorum: { type: 'threshold', threshold: 1 },
      });
      expect((await move(threshold.token, { action: 'approve', participant_id: 'dee' })).body.status).toBe('approved');
    });

    it('refuses an unnamed, unknown or repeated participant', async () => {
      const { token } = await mintOk({ kind: 'approval', participants: ['ann', 'bob', 'cy'], quorum: { type: 'majority' } });
      const unnamed = await move(token, { action: 'approve' });
      expect([unnamed.status, unnamed.body.reason_code]).toEqual([422, 'participant_required']);
      const stranger = await move(token, { action: 'approve', participant_id: 'eve' });
      expect([stranger.status, stranger.body.reason_code]).toEqual([403, 'participant_not_allowed']);
      await move(token, { action: 'deny', participant_id: 'ann' });
      const twice = await move(token, { action: 'approve', participant_id: 'ann' });
      expect([twice.status, twice.body.reason_code]).toEqual([409, 'already_voted']);
      const wrongKind = await move(token, { action: 'sign', participant_id: 'bob' });
      expect([wrongKind.status, wrongKind.body.reason_code]).toEqual([409, 'transition_not_allowed']);
    });

    it('opens an approval session from an escalation event and completes it with approval.granted carrying the escalation id', async () => {
      const sessionToken: string = newApprovalSessionToken();
      const escalationId = `esc_${randomUUID()}`;
      const id = randomUUID();
      const bus = running.app.get(BusConnection);
      const data = toBinary(
        ApprovalRequestedSchema,
        create(ApprovalRequestedSchema, {
          meta: create(EventMetaSchema, {
            eventId: id,
            eventType: 'oap.approval_requested',
            schemaVersion: 1,
            region: 'us',
            applicationId: app.id,
            occurredAt: timestampFromDate(clock.now()),
          }),
          escalationId,
          principalId: 'owner',
          quorumType: 'all',
          approvers: [],
          decisionUrl: `${BASE}/decisions/${sessionToken}`,
          sessionTokenSha256: createHash('sha256').update(sessionToken).digest('hex'),
          approvalTtlAt: new Date(clock.now().getTime() + 3_600_000).toISOString(),
          requestJson: JSON.stringify({ scope: 'payments', value: 500 }),
        }),
      );
      await new EventPublisher(bus).publish({
        id,
        subject: eventSubject(prefix, 'us', 'oap.approval_requested'),
        eventType: 'oap.approval_requested',
        data,
      });
      const state = await waitFor(async () => {
        const res = await http('GET', `${url}/api/v1/decisions/${sessionToken}/state`);
        return res.status === 200 ? res : undefined;
      });
      expect(state.body).toMatchObject({
        kind: 'approval',
        status: 'pending',
        trigger_type: 'escalation',
        proposal: { scope: 'payments', value: 500 },
      });
      const inbox = await http<{ data: Json[] }>('GET', `${url}/api/v1/inbox?principal_id=owner`, { headers: auth(app.token) });
      expect(inbox.body.data).toEqual([
        expect.objectContaining({ kind: 'approval', decision_url: `${BASE}/decisions/${sessionToken}`, reference: escalationId }),
      ]);
      const approved = await move(sessionToken, { action: 'approve' });
      expect(approved.body.status).toBe('approved');
      const event = await waitFor(() => events.find((e) => e.type === 'approval.granted' && e.payload.reference === escalationId));
      expect(event.payload).toMatchObject({ principalId: 'owner', outcome: 'approved' });
    });
  });

  describe('signing decisions', () => {
    it.each([
      [{ action: 'sign' }, 'signed', 'signature.signed'],
      [{ action: 'decline' }, 'declined', 'signature.declined'],
      [{ action: 'counter', counter_proposal: { clause: 4 } }, 'countered', 'signature.countered'],
    ])('%j resolves as %s with %s', async (step, status, type) => {
      const { token } = await mintOk({ kind: 'signature_request', principal_id: 'signer', reference: 'doc-1' });
      const res = await move(token, step);
      expect(res.body).toMatchObject({ status, allowed_actions: [] });
      const event = await waitFor(() => eventsOf(type, token)[0]);
      expect(event.payload).toMatchObject({ reference: 'doc-1', outcome: status });
    });
  });

  describe('deprecated POST /api/v1/consent_sessions', () => {
    it('answers with Deprecation and Sunset headers and a token usable on /api/v1/decisions/...', async () => {
      const res = await http('POST', `${url}/api/v1/consent_sessions`, {
        headers: auth(app.token),
        json: { flow_id: flows.standard, delivery_mode: 'embed', embed_origin: ORIGIN },
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('deprecation')).toBe(CONSENT_SESSIONS_DEPRECATED_AT);
      expect(res.headers.get('sunset')).toBe(CONSENT_SESSIONS_SUNSET);
      expect(res.headers.get('link')).toBe('</api/v1/decisions>; rel="successor-version"');
      const token = res.body.session_token as string;
      expect(res.body).toMatchObject({ kind: 'consent', status: 'pending', embed_url: `${BASE}/decisions/${token}/embed` });
      const read = await http('GET', `${url}/api/v1/decisions/${token}`, { headers: auth(app.token) });
      expect(read.body).toMatchObject({ kind: 'consent', status: 'pending', embed_origin: ORIGIN });
      const done = await walk(token, ['sign_in', 'start_checks', 'review_terms', 'complete']);
      expect(done.body.status).toBe('fulfilled');
    });

    it('keeps the headers on refusals and applies the publishable-key rules', async () => {
      const unknownField = await http('POST', `${url}/api/v1/consent_sessions`, {
        headers: auth(app.token),
        json: { flow_id: flows.standard, kind: 'approval' },
      });
      expect([unknownField.status, unknownField.body.reason_code]).toEqual([400, 'invalid_request']);
      expect(unknownField.headers.get('deprecation')).toBe(CONSENT_SESSIONS_DEPRECATED_AT);
      expect(unknownField.headers.get('sunset')).toBe(CONSENT_SESSIONS_SUNSET);
      const badOrigin = await http('POST', `${url}/api/v1/consent_sessions`, {
        headers: pkHeader(app.pk),
        json: { flow_id: flows.standard, embed_origin: 'https://evil.example.com' },
      });
      expect([badOrigin.status, badOrigin.body.reason_code]).toEqual([403, 'embed_origin_not_allowed']);
      const draft = await http('POST', `${url}/api/v1/consent_sessions`, { headers: auth(app.token), json: { flow_id: flows.draft } });
      expect([draft.status, draft.body.reason_code]).toEqual([409, 'flow_not_active']);
      const ok = await http('POST', `${url}/api/v1/consent_sessions`, {
        headers: pkHeader(app.pk),
        json: { flow_id: flows.standard, embed_origin: ORIGIN },
      });
      expect(ok.status).toBe(201);
    });
  });

  describe('inbox (GET /api/v1/inbox and GET /inbox)', () => {
    const principal = 'inbox-person';
    let tokens: { consent: string; value: string; scope: string };

    beforeAll(async () => {
      tokens = {
        consent: (await mintOk({ kind: 'consent', flow_id: flows.standard, principal_id: principal, ttl_seconds: 3000 })).token,
      } as typeof tokens;
      clock.advance(1_000);
      tokens.value = (
        await mintOk({
          kind: 'approval',
          participants: [principal, 'other-approver'],
          quorum: { type: 'all' },
          trigger_type: 'value',
          ttl_seconds: 1000,
        })
      ).token;
      clock.advance(1_000);
      tokens.scope = (await mintOk({ kind: 'approval', principal_id: principal, trigger_type: 'scope', ttl_seconds: 2000 })).token;
      await mintOk({ kind: 'approval', principal_id: 'someone-else', trigger_type: 'scope' });
      await mintOk({ kind: 'signature_request', principal_id: principal });
    });

    const inbox = (query: string, path = '/api/v1/inbox', token = app.token) =>
      http<{ data: Json[]; has_more: boolean; next_cursor: string | null }>('GET', `${url}${path}?principal_id=${principal}${query}`, {
        headers: auth(token),
      });

    it("lists the principal's pending consent and approval decisions by deadline, each linking to /decisions/:session_token", async () => {
      const res = await inbox('');
      expect(res.status).toBe(200);
      expect(res.body.data.map((r) => r.session_token)).toEqual([tokens.value, tokens.scope, tokens.consent]);
      expect(res.body.data[0]).toMatchObject({
        kind: 'approval',
        trigger_type: 'value',
        application_id: app.id,
        decision_url: `${BASE}/decisions/${tokens.value}`,
      });
      // `/inbox` is the signed-in person's page, not this JSON: signed out, it sends the browser to sign in.
      const page = await http('GET', `${url}/inbox`, { headers: auth(app.token) });
      expect([page.status, page.headers.get('location')]).toEqual([303, '/people/sign-in?return_to=%2Finbox']);
    });

    it('sorts newest first, filters by kind, trigger type and application, and paginates without loss', async () => {
      expect((await inbox('&sort=newest')).body.data.map((r) => r.session_token)).toEqual([tokens.scope, tokens.value, tokens.consent]);
      expect((await inbox('&kind=consent')).body.data.map((r) => r.session_token)).toEqual([tokens.consent]);
      expect((await inbox('&kind=approval&trigger_type=scope')).body.data.map((r) => r.session_token)).toEqual([tokens.scope]);
      expect((await inbox(`&application_id=${app.id}`)).body.data).toHaveLength(3);
      expect((await inbox(`&application_id=${other.id}`)).body.data).toEqual([]);
      expect((await inbox('', '/api/v1/inbox', other.token)).body.data).toEqual([]);
      for (const sort of ['deadline', 'newest']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await inbox(`&sort=${sort}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
          seen.push(...page.body.data.map((r) => r.session_token as string));
          cursor = page.body.next_cursor;
        } while (cursor);
        expect(seen).toHaveLength(3);
        expect(new Set(seen).size).toBe(3);
      }
    });

    it('drops a decision once the principal has answered it', async () => {
      await move(tokens.value, { action: 'approve', participant_id: principal });
      expect((await inbox('')).body.data.map((r) => r.session_token)).toEqual([tokens.scope, tokens.consent]);
    });

    it.each([
      ['no principal_id', '', 400, 'invalid_request'],
      ['an unknown kind', `?principal_id=${principal}&kind=signature_request`, 422, 'validation_failed'],
      ['an unknown trigger type', `?principal_id=${principal}&trigger_type=mood`, 422, 'validation_failed'],
      ['an unknown sort', `?principal_id=${principal}&sort=random`, 422, 'validation_failed'],
      ['a bad limit', `?principal_id=${principal}&limit=0`, 422, 'validation_failed'],
      ['a forged cursor', `?principal_id=${principal}&cursor=abc`, 400, 'invalid_cursor'],
      ['an unknown parameter', `?principal_id=${principal}&colour=red`, 400, 'invalid_request'],
    ])('answers 4xx for %s', async (_case, query, status, reason) => {
      const res = await http('GET', `${url}/api/v1/inbox${query}`, { headers: auth(app.token) });
      expect([res.status, res.body.reason_code]).toEqual([status, reason]);
    });
  });

  describe('session routes refuse bad input with 4xx', () => {
    it('answers 404 session_not_found for malformed, unknown and foreign tokens', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      for (const t of ['nope', `dts_${'A'.repeat(43)}`, `dts_${'A'.repeat(44)}`, 'A'.repeat(42)]) {
        for (const res of [
          await http('GET', `${url}/api/v1/decisions/${t}`, { headers: auth(app.token) }),
          await http('GET', `${url}/api/v1/decisions/${t}/state`),
          await move(t, { action: 'sign_in' }),
          await http('POST', `${url}/api/v1/decisions/${t}/exchange`, { headers: auth(app.token), json: { exchange_token: 'x' } }),
          await http('POST', `${url}/api/v1/decisions/${t}/revoke`, { headers: auth(app.token) }),
        ]) {
          expect([res.status, res.body.reason_code]).toEqual([404, 'session_not_found']);
        }
      }
      const foreign = await http('GET', `${url}/api/v1/decisions/${token}`, { headers: auth(other.token) });
      expect([foreign.status, foreign.body.reason_code]).toEqual([404, 'session_not_found']);
      // An overlong token is just another unknown token: 404 with the envelope, never a 5xx.
      const tooLong = await http('GET', `${url}/api/v1/decisions/dts_${'A'.repeat(300)}/state`);
      expect([tooLong.status, tooLong.body.reason_code]).toEqual([404, 'session_not_found']);
    });

    it.each([
      ['an unknown action', { action: 'teleport' }, 422, 'validation_failed'],
      ['a missing action', {}, 400, 'invalid_request'],
      ['an unknown field', { action: 'sign_in', colour: 1 }, 400, 'invalid_request'],
      ['a string counter_proposal', { action: 'sign_in', counter_proposal: 'x' }, 400, 'invalid_request'],
      ['evidence on the wrong move', { action: 'sign_in', evidence: { a: 1 } }, 422, 'field_not_applicable'],
      ['a participant on a consent move', { action: 'sign_in', participant_id: 'ann' }, 422, 'field_not_applicable'],
    ])('transitions: %s', async (_case, json, status, reason) => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      const res = await move(token, json);
      expect([res.status, res.body.reason_code]).toEqual([status, reason]);
    });

    it('exchange and verify: missing, wrong-type and unknown fields answer 400; no credentials 401', async () => {
      const { token } = await mintOk({ kind: 'consent', flow_id: flows.standard });
      for (const [path, json] of [
        [`/api/v1/decisions/${token}/exchange`, {}],
        [`/api/v1/decisions/${token}/exchange`, { exchange_token: 5 }],
        [`/api/v1/decisions/${token}/exchange`, { exchange_token: 'x', more: 1 }],
        ['/api/v1/decisions/consent_tokens/verify', {}],
        ['/api/v1/decisions/consent_tokens/verify', { consent_token: ['x'] }],
        ['/api/v1/decisions/consent_tokens/verify', { consent_token: 'x', more: 1 }],
      ] as const) {
        const res = await http('POST', `${url}${path}`, { headers: auth(app.token), json });
        expect([path, res.status, res.body.reason_code]).toEqual([path, 400, 'invalid_request']);
      }
      const oversized = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: 'x'.repeat(201) },
      });
      expect([oversized.status, oversized.body.reason_code]).toEqual([422, 'validation_failed']);
      const noAuth = await http('POST', `${url}/api/v1/decisions/consent_tokens/verify`, { json: { consent_token: 'x' } });
      expect([noAuth.status, noAuth.body.reason_code]).toEqual([401, 'unauthenticated']);
      const noAuthExchange = await http('POST', `${url}/api/v1/decisions/${token}/exchange`, { json: { exchange_token: 'x' } });
      expect(noAuthExchange.status).toBe(401);
    });
  });
});
