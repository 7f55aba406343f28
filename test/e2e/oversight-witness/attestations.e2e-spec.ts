import { fromBinary } from '@bufbuild/protobuf';
import { RpcClient } from '@svc/bus';
import { AttestationWitnessedSchema } from '@svc/contracts';
import { canonicalJson, sha256Hex } from '@svc/crypto';
import { http } from '@svc/testing';
import {
  attestationBody,
  bearer,
  createApp,
  createAttester,
  setMode,
  startOversightStack,
  submit,
  verifyWitnessReceipt,
  type OversightStack,
} from './support';

/** Spec: Attestation request (every field and limit), Runtime receipts (witness column), heartbeat, Hybrid mode. */
describe('POST /api/v1/oap/attestations', () => {
  let stack: OversightStack;
  let app: { id: string; token: string };
  let other: { id: string; token: string };
  let engine: { id: string; token: string };
  let classCounter = 0;
  /** A fresh agent class, so sequence numbers of one test never collide with another's. */
  const freshClass = () => `agent-class-${++classCounter}`;

  beforeAll(async () => {
    stack = await startOversightStack('ow_attestations');
    app = await createApp(stack);
    other = await createApp(stack, 'other');
    await setMode(stack, app, 'oversight');
    await setMode(stack, other, 'oversight');
    engine = await createAttester(stack, app);
  });
  afterAll(() => stack?.close());

  describe('witnessing', () => {
    it('answers 201 with the attestation and a witness receipt verifiable by two Ed25519 implementations, under 2 KB', async () => {
      const body = attestationBody(app.id, {
        agent_class: freshClass(),
        sequence_number: 1,
        context: { policy_ref: 'rego://payments', policy_version: 'v42' },
      });
      const res = await submit(stack, engine.token, body);
      expect(res.status).toBe(201);
      const attestation = res.body.attestation as Record<string, unknown>;
      expect(attestation).toEqual({
        id: expect.stringMatching(/^att_us_[a-z2-7]{24}$/),
        object: 'attestation',
        attestation_id: body.attestation_id,
        received_at: stack.clock.now().toISOString(),
        sequence_number: 1,
        sequence_gap: false,
        expected_sequence_number: null,
        decision: 'allow',
        status: 'witnessed',
        idempotent_replay: false,
      });
      const receipt = res.body.receipt as string;
      expect(Buffer.byteLength(receipt)).toBeLessThan(2048);
      const verified = await verifyWitnessReceipt(stack, receipt);
      expect(verified.header).toEqual({ alg: 'EdDSA', typ: 'oap+jwt', kid: expect.stringMatching(/^oap-us-v[0-9]+$/) });
      const iat = Math.floor(stack.clock.now().getTime() / 1000);
      expect(verified.payload).toEqual({
        iss: 'https://us.svc.example',
        iss_role: 'witness',
        oap_ver: '1.0',
        oap_conformance: 'oversight_full',
        jti: expect.stringMatching(/^wrec_[a-z2-7]{24}$/),
        iat,
        exp: iat + 3600,
        sub: attestation.id,
        decision: 'allow',
        legal_basis: 'contract',
        policy_ref: 'rego://payments',
        policy_version: 'v42',
        attestation_digest: `sha256:${sha256Hex(canonicalJson({ ...body, evidence_digest: body.evidence_digest }))}`,
      });
    });

    it('uses the attester id as policy_ref when the context names no policy', async () => {
      const res = await submit(
        stack,
        engine.token,
        attestationBody(app.id, { agent_class: freshClass(), decision: 'deny', context: undefined }),
      );
      expect(res.status).toBe(201);
      const verified = await verifyWitnessReceipt(stack, res.body.receipt as string);
      expect(verified.payload).toMatchObject({ decision: 'deny', policy_ref: engine.id, policy_version: null });
    });

    it('emits attestation.witnessed through the outbox for the audit chain, carrying the receipt', async () => {
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), sequence_number: 7 }));
      expect(res.status).toBe(201);
      const id = (res.body.attestation as { id: string }).id;
      const rows: Array<{ payload: Buffer }> = await stack.dataSource.query(
        `SELECT payload FROM oversight.outbox WHERE event_type = 'attestation.witnessed'`,
      );
      const events = rows.map((r) => fromBinary(AttestationWitnessedSchema, new Uint8Array(r.payload)));
      const event = events.find((e) => e.attestationId === id);
      expect(event).toMatchObject({
        attesterId: engine.id,
        decision: 'allow',
        status: 'witnessed',
        sequenceNumber: 7n,
        sequenceGap: false,
        receipt: res.body.receipt,
        meta: { eventType: 'attestation.witnessed', applicationId: app.id },
      });
    });
  });

  describe('idempotency (attestation_id)', () => {
    it('replays the original receipt with idempotent_replay: true and 200', async () => {
      const body = attestationBody(app.id, { agent_class: freshClass() });
      const first = await submit(stack, engine.token, body);
      stack.clock.advance(5_000);
      const replay = await submit(stack, engine.token, body);
      expect(replay.status).toBe(200);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.receipt).toBe(first.body.receipt);
      expect(replay.body.attestation).toEqual({ ...(first.body.attestation as object), idempotent_replay: true });
    });

    it('answers 50 concurrent identical submissions with one witnessed row and 49 replays of its receipt', async () => {
      const body = attestationBody(app.id, { agent_class: freshClass(), sequence_number: 1 });
      const answers = await Promise.all(Array.from({ length: 50 }, () => submit(stack, engine.token, body)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([...Array<number>(49).fill(200), 201]);
      const created = answers.find((a) => a.status === 201);
      for (const replay of answers.filter((a) => a.status === 200)) {
        expect(replay.body.receipt).toBe(created?.body.receipt);
        expect(replay.body.attestation).toMatchObject({ id: (created?.body.attestation as { id: string }).id, idempotent_replay: true });
      }
      const rows: Array<{ count: string }> = await stack.dataSource.query(
        `SELECT count(*) AS count FROM oversight.attestations WHERE application_id = $1 AND attestation_key = $2`,
        [app.id, body.attestation_id],
      );
      expect(Number(rows[0]?.count)).toBe(1);
    });

    it('treats touchpoint_id as application_id for the replay comparison', async () => {
      const body = attestationBody(app.id, { agent_class: freshClass() });
      const first = await submit(stack, engine.token, body);
      const { application_id: _dropped, ...rest } = body;
      const replay = await submit(stack, engine.token, { ...rest, touchpoint_id: app.id });
      expect(first.status).toBe(201);
      expect(replay.status).toBe(200);
      expect(replay.body.receipt).toBe(first.body.receipt);
    });

    it('refuses a replay with a different body: 409 attestation_id_reused', async () => {
      const body = attestationBody(app.id, { agent_class: freshClass() });
      expect((await submit(stack, engine.token, body)).status).toBe(201);
      const res = await submit(stack, engine.token, { ...body, decision: 'deny' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ reason_code: 'attestation_id_reused', detail: { field: 'attestation_id' } });
    });

    it('keys idempotency per application: another application may reuse the same attestation_id', async () => {
      const otherEngine = await createAttester(stack, other);
      const key = `shared-key-${Date.now()}`;
      expect((await submit(stack, engine.token, attestationBody(app.id, { attestation_id: key, agent_class: freshClass() }))).status).toBe(
        201,
      );
      expect(
        (await submit(stack, otherEngine.token, attestationBody(other.id, { attestation_id: key, agent_class: freshClass() }))).status,
      ).toBe(201);
    });
  });

  describe('sequence_number (monotonic per agent_class, gaps flagged)', () => {
    it('flags a gap, stores it and exposes it, and refuses a lower or repeated number with 409', async () => {
      const agentClass = freshClass();
      const one = await submit(stack, engine.token, attestationBody(app.id, { agent_class: agentClass, sequence_number: 1 }));
      expect(one.body.attestation).toMatchObject({ sequence_number: 1, sequence_gap: false });
      const four = await submit(stack, engine.token, attestationBody(app.id, { agent_class: agentClass, sequence_number: 4 }));
      expect(four.status).toBe(201);
      expect(four.body.attestation).toMatchObject({ sequence_number: 4, sequence_gap: true, expected_sequence_number: 2 });
      const id = (four.body.attestation as { id: string }).id;
      const read = await http('GET', `${stack.url}/api/v1/oap/attestations/${id}`, { headers: bearer(engine.token) });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ attestation: { id, sequence_gap: true, expected_sequence_number: 2, agent_class: agentClass } });
      const rows: Array<{ sequence_gap: boolean }> = await stack.dataSource.query(
        `SELECT sequence_gap FROM oversight.attestations WHERE id = $1`,
        [id],
      );
      expect(rows[0]?.sequence_gap).toBe(true);

      for (const n of [3, 4]) {
        const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: agentClass, sequence_number: n }));
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({
          reason_code: 'sequence_number_not_monotonic',
          detail: { field: 'sequence_number', last_sequence_number: 4 },
        });
      }
      const five = await submit(stack, engine.token, attestationBody(app.id, { agent_class: agentClass, sequence_number: 5 }));
      expect(five.body.attestation).toMatchObject({ sequence_number: 5, sequence_gap: false, expected_sequence_number: null });
      const metrics = await http('GET', `${stack.url}/metrics`);
      expect(metrics.text).toMatch(/oversight_attestations_witnessed_total\{[^}]*decision="allow"[^}]*sequence_gap="true"[^}]*\} [1-9]/);
    });

    it('keeps one sequence per agent class', async () => {
      const a = freshClass();
      const b = freshClass();
      expect((await submit(stack, engine.token, attestationBody(app.id, { agent_class: a, sequence_number: 10 }))).status).toBe(201);
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: b, sequence_number: 1 }));
      expect(res.status).toBe(201);
      expect(res.body.attestation).toMatchObject({ sequence_gap: false });
    });
  });

  describe('validation (400 shape, 422 rule; the field is named)', () => {
    const required = [
      'attestation_id',
      'application_id',
      'agent_class',
      'action_class',
      'decision',
      'decided_at',
      'sequence_number',
      'legal_basis',
      'evidence_digest',
    ];
    it.each(required)('refuses a body without %s: 400 invalid_request', async (field) => {
      const body = attestationBody(app.id, { agent_class: freshClass() });
      delete body[field];
      const res = await submit(stack, engine.token, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ reason_code: 'invalid_request', detail: { field } });
    });

    it.each([
      ['attestation_id', 'a'.repeat(65), 422],
      ['attestation_id', '', 422],
      ['attestation_id', 'has space', 422],
      ['attestation_id', 12, 400],
      ['application_id', 'app_123', 422],
      ['application_id', 5, 400],
      ['touchpoint_id', 'tp_nope', 422],
      ['agent_class', 'c'.repeat(129), 422],
      ['agent_class', '', 422],
      ['agent_class', ['x'], 400],
      ['action_class', 'a'.repeat(65), 422],
      ['action_class', null, 400],
      ['decision', 'maybe', 422],
      ['decision', 'ALLOW', 422],
      ['decision', true, 400],
      ['decided_at', 'yesterday', 422],
      ['decided_at', '2026-03-01 09:59:30', 422],
      ['decided_at', 1772359170, 400],
      ['sequence_number', 0, 422],
      ['sequence_number', -3, 422],
      ['sequence_number', 9007199254740992, 422],
      ['sequence_number', 1.5, 400],
      ['sequence_number', '7', 400],
      ['legal_basis', 'because', 422],
      ['legal_basis', 1, 400],
      ['evidence_digest', 'ab'.repeat(31), 422],
      ['evidence_digest', 'zz'.repeat(32), 422],
      ['evidence_digest', `sha256:${'ab'.repeat(32)}`, 422],
      ['context', { blob: 'x'.repeat(4100) }, 422],
      ['context', ['not', 'an', 'object'], 400],
      ['context', 'text', 400],
      ['requires_human_approval', 'yes', 400],
      ['unexpected_field', 1, 400],
    ])('refuses %s = %j with %i naming the field', async (field, value, status) => {
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), [field]: value }));
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ reason_code: status === 400 ? 'invalid_request' : 'validation_failed', detail: { field } });
    });

    it('accepts a context of exactly 4 KiB of canonical JSON and refuses one byte more', async () => {
      const fill = (n: number) => ({ k: 'x'.repeat(n - canonicalJson({ k: '' }).length) });
      expect(canonicalJson(fill(4096)).length).toBe(4096);
      expect((await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), context: fill(4096) }))).status).toBe(
        201,
      );
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), context: fill(4097) }));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: 'validation_failed', detail: { field: 'context' } });
    });

    it('accepts the limits exactly: attestation_id 64, agent_class 128, action_class 64 characters', async () => {
      const res = await submit(
        stack,
        engine.token,
        attestationBody(app.id, {
          attestation_id: 'i'.repeat(64),
          agent_class: `${freshClass()}${'c'.repeat(100)}`.slice(0, 128),
          action_class: 'a'.repeat(64),
        }),
      );
      expect(res.status).toBe(201);
    });

    it('accepts every legal_basis and RFC 3339 offsets', async () => {
      for (const legal of ['consent', 'contract', 'legal_obligation', 'vital_interests', 'public_task', 'legitimate_interests']) {
        const res = await submit(
          stack,
          engine.token,
          attestationBody(app.id, { agent_class: freshClass(), legal_basis: legal, decided_at: '2026-03-01T11:59:30+02:00' }),
        );
        expect(res.status).toBe(201);
      }
    });

    it('refuses decided_at more than 60 s in the future (clock skew) with 422', async () => {
      const future = new Date(stack.clock.now().getTime() + 61_000).toISOString();
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), decided_at: future }));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: 'validation_failed', detail: { field: 'decided_at' } });
      const near = new Date(stack.clock.now().getTime() + 60_000).toISOString();
      expect((await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), decided_at: near }))).status).toBe(
        201,
      );
    });

    it('refuses application_id and touchpoint_id that disagree: 422 naming touchpoint_id', async () => {
      const res = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass(), touchpoint_id: other.id }));
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: 'validation_failed', detail: { field: 'touchpoint_id' } });
    });

    it('accepts the legacy alias touchpoint_id alone', async () => {
      const { application_id: _drop, ...body } = attestationBody(app.id, { agent_class: freshClass() });
      const res = await submit(stack, engine.token, { ...body, touchpoint_id: app.id });
      expect(res.status).toBe(201);
    });

    it('refuses an attestation for another application: 403 application_not_permitted', async () => {
      const res = await submit(stack, engine.token, attestationBody(other.id, { agent_class: freshClass() }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ reason_code: 'application_not_permitted', detail: { field: 'application_id' } });
    });

    it('refuses malformed JSON, a non-object body and an oversized body with 400', async () => {
      const headers = { ...bearer(engine.token), 'content-type': 'application/json' };
      const url = `${stack.url}/api/v1/oap/attestations`;
      expect((await http('POST', url, { headers, raw: '{"attestation_id":' })).body).toMatchObject({ reason_code: 'malformed_json' });
      expect((await http('POST', url, { headers, raw: '[1,2]' })).status).toBe(400);
      const huge = await http('POST', url, {
        headers,
        raw: JSON.stringify(attestationBody(app.id, { context: { blob: 'x'.repeat(1_100_000) } })),
      });
      expect(huge.status).toBe(413);
      expect(huge.body).toMatchObject({ reason_code: 'payload_too_large' });
    });
  });

  describe('authentication', () => {
    it.each([
      ['no Authorization header', undefined, 'unauthenticated'],
      ['an API token', 'API', 'invalid_token'],
      ['a well-formed unknown attester token', `Bearer tat_us_${'B'.repeat(43)}`, 'invalid_token'],
      ['a malformed attester token', 'Bearer tat_us_short', 'invalid_token'],
      ['a Basic header', 'Basic dXNlcjpwYXNz', 'invalid_token'],
    ])('answers 401 for %s', async (_case, header, reason) => {
      const headers: Record<string, string> =
        header === undefined ? {} : { authorization: header === 'API' ? `Bearer ${app.token}` : header };
      const res = await http('POST', `${stack.url}/api/v1/oap/attestations`, { headers, json: attestationBody(app.id) });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ reason_code: reason });
    });

    it('checks authentication before the body: a bad body with no token is 401', async () => {
      const res = await http('POST', `${stack.url}/api/v1/oap/attestations`, { json: { nonsense: true } });
      expect(res.status).toBe(401);
    });

    it('answers GET of an unknown, malformed or foreign attestation id with 404', async () => {
      const otherEngine = await createAttester(stack, other);
      const mine = await submit(stack, engine.token, attestationBody(app.id, { agent_class: freshClass() }));
      const id = (mine.body.attestation as { id: string }).id;
      for (const [token, target] of [
        [otherEngine.token, id],
        [engine.token, 'att_us_nope'],
        [engine.token, `att_us_${'a'.repeat(24)}`],
      ] as const) {
        const res = await http('GET', `${stack.url}/api/v1/oap/attestations/${target}`, { headers: bearer(token) });
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ reason_code: 'attestation_not_found' });
      }
      expect((await http('GET', `${stack.url}/api/v1/oap/attestations/${id}`, { headers: bearer(app.token) })).status).toBe(401);
    });
  });

  describe('application mode', () => {
    it('refuses attestations for a conductor-mode application: 409 application_not_in_oversight_mode', async () => {
      const conductorApp = await createApp(stack, 'conductor');
      const conductorEngine = await createAttester(stack, conductorApp);
      const res = await submit(stack, conductorEngine.token, attestationBody(conductorApp.id, { agent_class: freshClass() }));
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ reason_code: 'application_not_in_oversight_mode', detail: { mode: 'conductor' } });
    });
  });

  describe('hybrid mode (per agent class routing)', () => {
    it('routes each agent class to conductor or oversight inside one application, readable over RPC', async () => {
      const hybrid = await createApp(stack, 'hybrid');
      await setMode(stack, hybrid, 'hybrid');
      const hybridEngine = await createAttester(stack, hybrid);
      const routes = `${stack.url}/api/v1/oap/attestations/agent_class_routes`;
      const put = await http('PUT', routes, { headers: bearer(hybrid.token), json: { agent_class: 'refunds-agent', route: 'oversight' } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ agent_class_route: { agent_class: 'refunds-agent', route: 'oversight' } });
      await http('PUT', routes, { headers: bearer(hybrid.token), json: { agent_class: 'booking-agent', route: 'conductor' } });

      const oversight = await submit(stack, hybridEngine.token, attestationBody(hybrid.id, { agent_class: 'refunds-agent' }));
      expect(oversight.status).toBe(201);
      await verifyWitnessReceipt(stack, oversight.body.receipt as string);
      for (const agentClass of ['booking-agent', 'unconfigured-agent']) {
        const res = await submit(stack, hybridEngine.token, attestationBody(hybrid.id, { agent_class: agentClass }));
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({
          reason_code: 'agent_class_routed_to_conductor',
          detail: { field: 'agent_class', agent_class: agentClass },
        });
      }

      const rpc = stack.process.app.get(RpcClient);
      const toOversight = await rpc.call('oversight.agent_class_route', { applicationId: hybrid.id, agentClass: 'refunds-agent' });
      expect({ mode: toOversight.mode, route: toOversight.route, configured: toOversight.configured }).toEqual({
        mode: 'hybrid',
        route: 'oversight',
        configured: true,
      });
      const toConductor = await rpc.call('oversight.agent_class_route', { applicationId: hybrid.id, agentClass: 'unconfigured-agent' });
      expect({ route: toConductor.route, configured: toConductor.configured }).toEqual({ route: 'conductor', configured: false });
      await expect(
        rpc.call('oversight.agent_class_route', { applicationId: `tp_us_${'z'.repeat(20)}`, agentClass: 'x' }),
      ).rejects.toMatchObject({ code: 'application_not_found' });

      const effective = await http('GET', `${routes}?agent_class=booking-agent`, { headers: bearer(hybrid.token) });
      expect(effective.body).toEqual({
        object: 'agent_class_route',
        agent_class: 'booking-agent',
        mode: 'hybrid',
        route: 'conductor',
        configured: true,
      });
      const list = await http<{ data: Array<{ agent_class: string }> }>('GET', routes, { headers: bearer(hybrid.token) });
      expect(list.body.data.map((r) => r.agent_class)).toEqual(['booking-agent', 'refunds-agent']);
      expect((await http<{ data: unknown[] }>('GET', routes, { headers: bearer(other.token) })).body.data).toEqual([]);

      expect((await http('DELETE', `${routes}?agent_class=refunds-agent`, { headers: bearer(hybrid.token) })).status).toBe(204);
      const after = await submit(stack, hybridEngine.token, attestationBody(hybrid.id, { agent_class: 'refunds-agent' }));
      expect(after.body).toMatchObject({ reason_code: 'agent_class_routed_to_conductor' });

      const oversightOnly = await rpc.call('oversight.agent_class_route', { applicationId: app.id, agentClass: 'anything' });
      expect({ mode: oversightOnly.mode, route: oversightOnly.route }).toEqual({ mode: 'oversight', route: 'oversight' });
    });

    it.each([
      ['an unknown route', { agent_class: 'a', route: 'elsewhere' }, 422, 'route'],
      ['a missing agent_class', { route: 'oversight' }, 400, 'agent_class'],
      ['a 129-character agent_class', { agent_class: 'c'.repeat(129), route: 'oversight' }, 422, 'agent_class'],
      ['an unknown field', { agent_class: 'a', route: 'oversight', weight: 1 }, 400, 'weight'],
    ])('refuses PUT with %s', async (_case, body, status, field) => {
      const res = await http('PUT', `${stack.url}/api/v1/oap/attestations/agent_class_routes`, { headers: bearer(app.token), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ detail: { field } });
    });

    it('answers 401 to the routes endpoints without an API token and 400 to DELETE without agent_class', async () => {
      const url = `${stack.url}/api/v1/oap/attestations/agent_class_routes`;
      expect((await http('GET', url)).status).toBe(401);
      expect((await http('PUT', url, { headers: bearer(engine.token), json: { agent_class: 'a', route: 'oversight' } })).status).toBe(401);
      for (const [query, status] of [
        ['limit=0', 422],
        ['limit=x', 400],
        ['cursor=zz', 400],
        ['agent_class=' + 'c'.repeat(129), 422],
        ['other=1', 400],
      ] as const) {
        expect((await http('GET', `${url}?${query}`, { headers: bearer(app.token) })).status).toBe(status);
      }
      const missing = await http('DELETE', url, { headers: bearer(app.token) });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ detail: { field: 'agent_class' } });
    });
  });

  describe('heartbeat', () => {
    it('records liveness per attester and flags a silent engine after the threshold', async () => {
      const hbEngine = await createAttester(stack, other, { name: 'hb-engine' });
      const list = () =>
        http<{ data: Array<Record<string, unknown>> }>('GET', `${stack.url}/api/v1/oap/attestations/heartbeat`, {
          headers: bearer(other.token),
        });
      const before = (await list()).body.data.find((a) => a.attester_id === hbEngine.id);
      expect(before).toMatchObject({ last_heartbeat_at: null, silent: true });

      const res = await http('POST', `${stack.url}/api/v1/oap/attestations/heartbeat`, {
        headers: bearer(hbEngine.token),
        json: { status: 'degraded', engine_version: 'opa-0.70' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        heartbeat: { attester_id: hbEngine.id, received_at: stack.clock.now().toISOString(), status: 'degraded' },
      });
      const fresh = (await list()).body.data.find((a) => a.attester_id === hbEngine.id);
      expect(fresh).toMatchObject({
        last_heartbeat_at: stack.clock.now().toISOString(),
        last_heartbeat: { status: 'degraded', engine_version: 'opa-0.70' },
        silent: false,
        silent_after_seconds: 300,
      });

      stack.clock.advance(301_000);
      expect((await list()).body.data.find((a) => a.attester_id === hbEngine.id)).toMatchObject({ silent: true });
      const lenient = await http<{ data: Array<Record<string, unknown>> }>(
        'GET',
        `${stack.url}/api/v1/oap/attestations/heartbeat?silent_after_seconds=600`,
        { headers: bearer(other.token) },
      );
      expect(lenient.body.data.find((a) => a.attester_id === hbEngine.id)).toMatchObject({ silent: false, silent_after_seconds: 600 });
      const attesterView = await http('GET', `${stack.url}/api/v1/trusted_attesters/${hbEngine.id}`, { headers: bearer(other.token) });
      expect(attesterView.body).toMatchObject({ trusted_attester: { liveness: { silent: true } } });
    });

    it.each([
      ['an unknown status', { status: 'sleepy' }, 422, 'status'],
      ['an unknown field', { uptime: 3 }, 400, 'uptime'],
      ['engine_version of the wrong type', { engine_version: 3 }, 400, 'engine_version'],
      ['a 65-character engine_version', { engine_version: 'v'.repeat(65) }, 422, 'engine_version'],
    ])('refuses a heartbeat with %s', async (_case, body, status, field) => {
      const res = await http('POST', `${stack.url}/api/v1/oap/attestations/heartbeat`, { headers: bearer(engine.token), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ detail: { field } });
    });

    it('answers 401 to heartbeats without a valid attester token and to the liveness list without an API token', async () => {
      expect((await http('POST', `${stack.url}/api/v1/oap/attestations/heartbeat`, { json: {} })).body).toMatchObject({
        reason_code: 'unauthenticated',
      });
      expect(
        (await http('POST', `${stack.url}/api/v1/oap/attestations/heartbeat`, { headers: bearer(app.token), json: {} })).body,
      ).toMatchObject({ reason_code: 'invalid_token' });
      expect((await http('GET', `${stack.url}/api/v1/oap/attestations/heartbeat`, { headers: bearer(engine.token) })).status).toBe(401);
      for (const [q, status] of [
        ['silent_after_seconds=5', 422],
        ['silent_after_seconds=abc', 400],
        ['limit=500', 422],
        ['colour=red', 400],
      ] as const) {
        const res = await http('GET', `${stack.url}/api/v1/oap/attestations/heartbeat?${q}`, { headers: bearer(app.token) });
        expect(res.status).toBe(status);
      }
    });
  });
});
