import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import nacl from 'tweetnacl';
import { http } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { create, toBinary } from '@bufbuild/protobuf';
import { ApprovalDecidedSchema, decodeEvent } from '@svc/contracts';
import { ApprovalOutcomesConsumer, RecordAgentReputation, ResolveEscalation } from '@svc/oap-authorizer';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  dpopProof,
  grantBody,
  newAgentKey,
  publishManifest,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/** Spec: OAP grant request, Authority bounds, Runtime receipts, Cascade denial categories; issue 3 Deliver 1–5, 7. */
describe('POST /api/v1/grants through the us router', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let other: TestApp;
  let key: AgentKey;
  let db: DataSource;

  beforeAll(async () => {
    stack = await startRegions('oap_grants', { clock, regions: ['us'] });
    us = stack.url.us;
    app = await createApp(stack);
    other = await createApp(stack, 'other');
    key = await newAgentKey();
    db = stack.process.us.app.get(DataSource);
  });
  afterAll(() => stack?.close());

  const now = () => clock.now();

  async function readyAgent(
    overrides: Record<string, unknown> = {},
    metadata?: Record<string, unknown>,
  ): Promise<{ agentId: string; authorityId: string }> {
    const agentId = await createAgent(us, app, { manifest: true, metadata });
    const authorityId = await createAuthority(us, app, agentId, overrides);
    return { agentId, authorityId };
  }

  describe('allow', () => {
    it('returns grant_id, a DPoP-bound agent_token and an authorizer receipt that verifies with tweetnacl', async () => {
      const { agentId, authorityId } = await readyAgent(
        {},
        { agent_type: 'assistant', agent_model: 'm-1', delegation_purpose: 'shopping' },
      );
      const res = await requestGrant(
        us,
        app,
        key,
        grantBody(agentId, key, {
          agent_metadata: { agent_type: 'assistant', agent_model: 'm-1' },
          purpose: 'shopping',
          jurisdiction: 'FR',
        }),
        { now: now() },
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ decision: 'allow', oap_ver: '1.0', iss: us, token_type: 'DPoP' });
      expect(res.body.grant_id).toMatch(/^ath_us_[a-z2-7]{24}$/);
      expect(res.body.agent_token).toMatch(/^ra_agent_[A-Za-z0-9_-]{43}$/);
      const receipt = res.body.grant_attestation as string;
      expect(Buffer.byteLength(receipt)).toBeLessThan(2048);
      const [h, p, s] = receipt.split('.') as [string, string, string];
      const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
      expect(header).toEqual({ alg: 'EdDSA', typ: 'oap+jwt', kid: expect.stringMatching(/^oap-us-v\d+$/) });
      const jwks = await http<{ keys: Array<{ kid: string; x: string }> }>('GET', `${us}/.well-known/jwks.json`);
      const jwk = jwks.body.keys.find((k) => k.kid === header.kid)!;
      const ok = nacl.sign.detached.verify(Buffer.from(`${h}.${p}`), Buffer.from(s, 'base64url'), Buffer.from(jwk.x, 'base64url'));
      expect(ok).toBe(true);
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
      expect(claims).toMatchObject({
        iss: us,
        iss_role: 'authorizer',
        oap_ver: '1.0',
        oap_conformance: 'conductor_full',
        aud: app.id,
        grant_id: res.body.grant_id,
        action: 'pay',
        scope: 'payments:write',
        value: '25.50',
        currency: 'EUR',
        single_use: true,
        agent_type: 'assistant',
        agent_model: 'm-1',
      });
      expect(claims.context_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(typeof claims.chronicle_id).toBe('string');
      expect(claims.exp as number).toBeGreaterThan(claims.iat as number);
      expect(receipt).not.toContain(res.body.agent_token as string);
      const grants = await db.query(`SELECT agent_token_sha256, dpop_jkt, authority_id FROM oap.grants WHERE id = $1`, [res.body.grant_id]);
      expect(grants[0]).toMatchObject({ dpop_jkt: key.jkt, authority_id: authorityId });
      expect(grants[0].agent_token_sha256).toMatch(/^[0-9a-f]{64}$/);
      const events = await db.query(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'grant.decided'`);
      expect(events[0].n).toBeGreaterThan(0);
    });
  });

  describe('denial at every step 3–15 (right category and step)', () => {
    async function expectDenial(res: { status: number; body: Record<string, unknown> }, step: number, category: string, reason?: string) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        decision: 'deny',
        cascade_step: step,
        denial_category: category,
        ...(reason ? { reason_code: reason } : {}),
      });
      expect(res.body).not.toHaveProperty('agent_token');
    }

    it('step 3: no authority covers the agent', async () => {
      const agentId = await createAgent(us, app, { manifest: true });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        3,
        'authorization_denied',
        'authority_not_found',
      );
    });

    it('step 3: a suspended authority, then allowed again once resumed, denied after revocation', async () => {
      const { agentId, authorityId } = await readyAgent();
      const suspended = await http('POST', `${us}/api/v1/authorities/${authorityId}/suspend`, {
        headers: bearer(app.token),
        json: { reason: 'audit' },
      });
      expect(suspended.status).toBe(201);
      expect(suspended.body.status).toBe('suspended');
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        3,
        'authorization_denied',
        'authority_suspended',
      );
      const again = await http('POST', `${us}/api/v1/authorities/${authorityId}/suspend`, { headers: bearer(app.token), json: {} });
      expect(again.status).toBe(409);
      expect(again.body.reason_code).toBe('authority_state_conflict');
      expect(
        (await http('POST', `${us}/api/v1/authorities/${authorityId}/resume`, { headers: bearer(app.token), json: {} })).body.status,
      ).toBe('active');
      expect((await requestGrant(us, app, key, grantBody(agentId, key), { now: now() })).status).toBe(201);
      expect(
        (await http('POST', `${us}/api/v1/authorities/${authorityId}/revoke`, { headers: bearer(app.token), json: {} })).body.status,
      ).toBe('revoked');
      await expectDenial(await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }), 3, 'authorization_denied');
      const types = await db.query(`SELECT event_type FROM oap.outbox WHERE event_type LIKE 'authority.%' ORDER BY seq`);
      expect(new Set(types.map((t: { event_type: string }) => t.event_type))).toEqual(
        new Set(['authority.created', 'authority.exercised', 'authority.suspended', 'authority.resumed', 'authority.revoked']),
      );
    });

    it('step 4: scope not allowed', async () => {
      const { agentId } = await readyAgent();
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { scope: ['mail:send'] }), { now: now() }),
        4,
        'authorization_denied',
        'scope_not_allowed',
      );
    });

    it('step 4: absent scope bounds mean denied, never unlimited', async () => {
      const { agentId } = await readyAgent({ scope_bounds: undefined });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        4,
        'authorization_denied',
        'scope_bounds_not_configured',
      );
    });

    it('step 5: action not allowed', async () => {
      const { agentId } = await readyAgent();
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { actions: ['refund'] }), { now: now() }),
        5,
        'authorization_denied',
        'action_not_allowed',
      );
    });

    it('step 6: reserved action_not_prohibited', async () => {
      const { agentId } = await readyAgent({ action_bounds: { unrestricted: true, prohibited: ['wire'] } });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { actions: ['wire'] }), { now: now() }),
        6,
        'action_not_prohibited',
        'action_prohibited',
      );
    });

    it('step 7: value above the per-action ceiling, and a wrong currency', async () => {
      const { agentId } = await readyAgent();
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: '100.01', currency: 'EUR' } }), {
          now: now(),
        }),
        7,
        'intent_denied',
        'value_exceeds_per_action',
      );
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: '1', currency: 'USD' } }), {
          now: now(),
        }),
        7,
        'intent_denied',
        'currency_mismatch',
      );
    });

    it('step 7: aggregate ceiling across allowed grants (exact decimals)', async () => {
      const { agentId } = await readyAgent({ value_bounds: { currency: 'EUR', per_action: '100', aggregate: '50.00' } });
      expect(
        (
          await requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: '30.10', currency: 'EUR' } }), {
            now: now(),
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: '19.90', currency: 'EUR' } }), {
            now: now(),
          })
        ).status,
      ).toBe(201);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { value_bounds: { amount_per_action: '0.01', currency: 'EUR' } }), {
          now: now(),
        }),
        7,
        'intent_denied',
        'value_exceeds_aggregate',
      );
    });

    it('step 8: outside the time window, and per-bucket counts', async () => {
      const { agentId } = await readyAgent({ time_bounds: { hours_utc: [0, 9] } });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        8,
        'intent_denied',
        'outside_time_window',
      );
      const bucket = await readyAgent({ time_bounds: { buckets: [{ period: 'hour', max: 1 }] } });
      expect((await requestGrant(us, app, key, grantBody(bucket.agentId, key), { now: now() })).status).toBe(201);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(bucket.agentId, key), { now: now() }),
        8,
        'intent_denied',
        'time_bucket_exhausted',
      );
    });

    it('step 9: reputation below the threshold, allowed once the Verify surface raises it', async () => {
      const { agentId } = await readyAgent({ reputation_bounds: { min_trust_score: 60, min_vouch_count: 1 } });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        9,
        'intent_denied',
        'reputation_below_threshold',
      );
      await stack.process.us.app.get(RecordAgentReputation).execute(agentId, 75, 2);
      expect((await requestGrant(us, app, key, grantBody(agentId, key), { now: now() })).status).toBe(201);
    });

    it('step 10: an escalation nobody can approve is denied', async () => {
      const { agentId } = await readyAgent({ escalation_bounds: { always: true, quorum_type: 'all', approvers: [] } });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        10,
        'intent_denied',
        'escalation_without_approvers',
      );
    });

    it('step 11: purpose of use incompatible, and a jurisdiction outside the bounds', async () => {
      const { agentId } = await readyAgent();
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { purpose: 'gambling' }), { now: now() }),
        11,
        'intent_denied',
        'purpose_incompatible',
      );
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { jurisdiction: 'US' }), { now: now() }),
        11,
        'intent_denied',
        'jurisdiction_not_allowed',
      );
    });

    it('step 12: reserved max_actions', async () => {
      const { agentId } = await readyAgent({ action_bounds: { allowed: ['pay'], max_actions: 1 } });
      expect((await requestGrant(us, app, key, grantBody(agentId, key), { now: now() })).status).toBe(201);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        12,
        'max_actions',
        'max_actions_reached',
      );
    });

    it('step 13: sequence ordering, rate and repetition', async () => {
      const ordered = await readyAgent({ oap_sequence_bounds: { ordering: ['quote', 'pay'] } });
      await expectDenial(
        await requestGrant(us, app, key, grantBody(ordered.agentId, key), { now: now() }),
        13,
        'trajectory_denied',
        'sequence_order_violated',
      );
      expect((await requestGrant(us, app, key, grantBody(ordered.agentId, key, { actions: ['quote'] }), { now: now() })).status).toBe(201);
      expect((await requestGrant(us, app, key, grantBody(ordered.agentId, key), { now: now() })).status).toBe(201);
      const rate = await readyAgent({ oap_sequence_bounds: { max_per_minute: 1 } });
      expect((await requestGrant(us, app, key, grantBody(rate.agentId, key), { now: now() })).status).toBe(201);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(rate.agentId, key), { now: now() }),
        13,
        'trajectory_denied',
        'sequence_rate_exceeded',
      );
      const repeat = await readyAgent({ oap_sequence_bounds: { max_repetitions: 1 } });
      expect((await requestGrant(us, app, key, grantBody(repeat.agentId, key), { now: now() })).status).toBe(201);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(repeat.agentId, key), { now: now() }),
        13,
        'trajectory_denied',
        'sequence_repetition_exceeded',
      );
    });

    it('step 14: delegation_chain_invalid (403) and a chain deeper than the bound', async () => {
      const { agentId } = await readyAgent({ oap_sequence_bounds: { max_continuation_depth: 1 } });
      const hop = (iss: string, aud: string, sub: string, at: string, scope: string) => ({
        iss,
        aud,
        sub,
        delegated_at: at,
        scope,
        purpose: 'shopping',
        jti: randomUUID(),
      });
      const valid = [
        hop('user_1', 'planner', 'planner', '2026-03-04T09:00:00Z', 'payments:write'),
        hop('planner', agentId, agentId, '2026-03-04T09:10:00Z', 'payments:write'),
      ];
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { delegation_chain: valid }), { now: now() }),
        14,
        'trajectory_denied',
        'continuation_depth_exceeded',
      );
      const reordered = [valid[1], valid[0]];
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key, { delegation_chain: reordered }), { now: now() }),
        14,
        'trajectory_denied',
        'delegation_chain_invalid',
      );
      expect((await requestGrant(us, app, key, grantBody(agentId, key, { delegation_chain: [valid[1]] }), { now: now() })).status).toBe(
        201,
      );
    });

    it('step 15: drift — the capability manifest changed since the authority', async () => {
      const { agentId } = await readyAgent();
      await publishManifest(us, app, agentId, ['pay', 'quote', 'refund']);
      await expectDenial(
        await requestGrant(us, app, key, grantBody(agentId, key), { now: now() }),
        15,
        'trajectory_denied',
        'capability_drift',
      );
    });

    it('records every decision and emits grant.decided for each', async () => {
      const decisions = await db.query(`SELECT decision, count(*)::int AS n FROM oap.decisions GROUP BY decision`);
      const events = await db.query(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'grant.decided'`);
      const total = decisions.reduce((sum: number, d: { n: number }) => sum + d.n, 0);
      expect(events[0].n).toBe(total);
    });
  });

  describe('escalate', () => {
    it('opens an escalation (decision_url, 43-char session_token, approval_ttl_at), approval issues the grant once', async () => {
      const { agentId } = await readyAgent({
        escalation_bounds: { amount_over: '50', quorum_type: 'majority', approvers: ['user_1', 'user_2', 'user_3'] },
      });
      const res = await requestGrant(
        us,
        app,
        key,
        grantBody(agentId, key, { value_bounds: { amount_per_action: '75', currency: 'EUR' } }),
        { now: now() },
      );
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ decision: 'escalate', quorum_type: 'majority', approvals_needed: 2, cascade_step: 10 });
      expect(res.body.session_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.body.decision_url).toBe(`${us}/decisions/${res.body.session_token as string}`);
      expect(new Date(res.body.approval_ttl_at as string).getTime()).toBe(now().getTime() + 900_000);
      const id = res.body.escalation_id as string;
      expect(id).toMatch(/^esc_us_[a-z2-7]{20}$/);
      const requested = await db.query(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'oap.approval_requested'`);
      expect(requested[0].n).toBeGreaterThan(0);
      const pending = await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) });
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({ id, status: 'pending', approvals_needed: 2 });
      expect((await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(other.token) })).status).toBe(404);
      await stack.process.us.app.get(ResolveEscalation).execute(id, 'approved');
      const approved = await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) });
      expect(approved.body).toMatchObject({ status: 'approved', grant_id: expect.stringMatching(/^ath_us_/) });
      expect(approved.body.agent_token).toMatch(/^ra_agent_/);
      expect(approved.body.grant_attestation).toEqual(expect.any(String));
      const later = await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) });
      expect(later.body).not.toHaveProperty('agent_token');
      const closed = await (async () => {
        try {
          await stack.process.us.app.get(ResolveEscalation).execute(id, 'denied');
          return undefined;
        } catch (error) {
          return (error as { code?: string }).code;
        }
      })();
      expect(closed).toBe('escalation_closed');
    });

    it('applies the decisions surface aggregated approval.denied event (selected by type, reference = escalation id)', async () => {
      const { agentId } = await readyAgent({ escalation_bounds: { always: true, quorum_type: 'all', approvers: ['user_1'] } });
      const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: now() });
      const id = res.body.escalation_id as string;
      const consumer = stack.process.us.app.get(ApprovalOutcomesConsumer);
      const data = toBinary(
        ApprovalDecidedSchema,
        create(ApprovalDecidedSchema, { reference: id, outcome: 'denied', quorumType: 'all', required: 1, denials: 1 }),
      );
      const event = { id: randomUUID(), eventType: 'approval.denied', data } as Parameters<typeof consumer.handle>[0];
      await consumer.handle(event);
      await consumer.handle(event);
      await consumer.handle({ ...event, id: randomUUID(), eventType: 'approval.granted' });
      const denied = await http('GET', `${us}/api/v1/oap/escalations/${id}`, { headers: bearer(app.token) });
      expect(denied.body).toMatchObject({ status: 'denied', grant_id: null });
      const resolved = await db.query(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'oap.escalation_resolved'`);
      expect(resolved[0].n).toBeGreaterThan(0);
    });

    it('an approval after approval_ttl_at expires the escalation instead', async () => {
      const { agentId } = await readyAgent({
        escalation_bounds: { always: true, quorum_type: 'all', approvers: ['user_1'], approval_ttl_seconds: 60 },
      });
      const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: now() });
      expect(res.status).toBe(202);
      clock.advance(61_000);
      const resolved = await stack.process.us.app.get(ResolveEscalation).execute(res.body.escalation_id as string, 'approved');
      expect(resolved.status).toBe('expired');
      expect(resolved.grantId).toBeNull();
      clock.set('2026-03-04T10:30:00.000Z');
    });
  });

  describe('Idempotency-Key', () => {
    it('is required (400 at step 1)', async () => {
      const { agentId } = await readyAgent();
      const res = await http('POST', `${us}/api/v1/grants`, {
        headers: { ...bearer(app.token), dpop: await dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: now() }) },
        json: grantBody(agentId, key),
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ reason_code: 'idempotency_key_missing' });
    });

    it('replays the stored response for the same key and body, 422 for another body, scoped to the application', async () => {
      const { agentId } = await readyAgent();
      const idem = randomUUID();
      const first = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), idempotencyKey: idem });
      expect(first.status).toBe(201);
      const replay = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), idempotencyKey: idem });
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      const changed = await requestGrant(us, app, key, grantBody(agentId, key, { actions: ['quote'] }), {
        now: now(),
        idempotencyKey: idem,
      });
      expect(changed.status).toBe(422);
      expect(changed.body.reason_code).toBe('idempotency_key_reused');
      const foreignAgent = await createAgent(us, other, { manifest: true });
      await createAuthority(us, other, foreignAgent);
      const otherApp = await requestGrant(us, other, key, grantBody(foreignAgent, key), { now: now(), idempotencyKey: idem });
      expect(otherApp.status).toBe(201);
      expect(otherApp.body.grant_id).not.toBe(first.body.grant_id);
    });

    it('keeps keys at least 24 h', async () => {
      const { agentId } = await readyAgent();
      const idem = randomUUID();
      const first = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), idempotencyKey: idem });
      clock.advance(23 * 3600_000 + 59 * 60_000);
      const replay = await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: '2026-03-06T12:00:00Z' }), {
        now: now(),
        idempotencyKey: idem,
      });
      expect(replay.status).toBe(422);
      const same = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), idempotencyKey: idem });
      expect(same.body).toEqual(first.body);
      clock.set('2026-03-04T10:30:00.000Z');
    });

    it('50 concurrent duplicates create exactly one grant, one receipt and one grant.decided event', async () => {
      const { agentId, authorityId } = await readyAgent();
      const idem = randomUUID();
      const body = grantBody(agentId, key, { valid_until: new Date(now().getTime() + 3600_000).toISOString() });
      const proofs = await Promise.all(Array.from({ length: 50 }, () => dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: now() })));
      const results = await Promise.all(
        proofs.map((proof) => requestGrant(us, app, key, body, { now: now(), idempotencyKey: idem, proof })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
      const created = results.filter((r) => r.status === 201);
      expect(created.length).toBeGreaterThan(0);
      expect(new Set(created.map((r) => r.body.grant_id)).size).toBe(1);
      for (const conflict of results.filter((r) => r.status === 409))
        expect(conflict.body.reason_code).toBe('idempotency_request_in_progress');
      const grants = await db.query(
        `SELECT count(*)::int AS n, count(DISTINCT receipt_jti)::int AS receipts FROM oap.grants WHERE authority_id = $1`,
        [authorityId],
      );
      expect(grants[0]).toEqual({ n: 1, receipts: 1 });
      const decisions = await db.query(`SELECT count(*)::int AS n FROM oap.decisions WHERE authority_id = $1`, [authorityId]);
      expect(decisions[0].n).toBe(1);
      const outbox: Array<{ payload: Buffer }> = await db.query(`SELECT payload FROM oap.outbox WHERE event_type = 'grant.decided'`);
      const mine = outbox.map((row) => decodeEvent('grant.decided', row.payload)).filter((event) => event.authorityId === authorityId);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.grantId).toBe(created[0]!.body.grant_id);
    });
  });

  describe('DPoP (RFC 9449) on the grant request and on agent calls', () => {
    it('refuses a grant request without a proof, or whose key is not agent_dpop_jkt (step 2)', async () => {
      const { agentId } = await readyAgent();
      const none = await http('POST', `${us}/api/v1/grants`, {
        headers: { ...bearer(app.token), 'idempotency-key': randomUUID() },
        json: grantBody(agentId, key),
      });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({
        reason_code: 'dpop_proof_missing',
        detail: { cascade_step: 2, denial_category: 'authorization_denied' },
      });
      const otherKey = await newAgentKey();
      const mismatch = await requestGrant(us, app, otherKey, grantBody(agentId, key), { now: now() });
      expect(mismatch.status).toBe(401);
      expect(mismatch.body.reason_code).toBe('agent_token_grant_mismatch');
    });

    it.each([
      ['wrong htm', (k: AgentKey, base: string) => dpopProof(k, 'GET', `${base}/api/v1/grants`, { now: new Date('2026-03-04T10:30:00Z') })],
      [
        'wrong htu',
        (k: AgentKey, base: string) => dpopProof(k, 'POST', `${base}/api/v1/agents`, { now: new Date('2026-03-04T10:30:00Z') }),
      ],
      [
        'wrong typ',
        (k: AgentKey, base: string) => dpopProof(k, 'POST', `${base}/api/v1/grants`, { now: new Date('2026-03-04T10:30:00Z'), typ: 'JWT' }),
      ],
    ])('refuses a proof with %s', async (_name, make) => {
      const { agentId } = await readyAgent();
      const proof = await make(key, us);
      const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), proof });
      expect(res.status).toBe(401);
      expect(res.body.reason_code).toBe('dpop_proof_invalid');
    });

    it('refuses a stale iat and a replayed jti', async () => {
      const { agentId } = await readyAgent();
      const stale = await dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: new Date(now().getTime() - 120_000) });
      expect((await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), proof: stale })).body.reason_code).toBe(
        'dpop_proof_invalid',
      );
      const proof = await dpopProof(key, 'POST', `${us}/api/v1/grants`, { now: now() });
      expect((await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), proof })).status).toBe(201);
      const replayed = await requestGrant(us, app, key, grantBody(agentId, key), { now: now(), proof });
      expect(replayed.status).toBe(401);
      expect(replayed.body.reason_code).toBe('dpop_proof_replayed');
    });

    it('binds the agent token: ath, key and URL grant must match (agent_token_grant_mismatch 401)', async () => {
      const { agentId } = await readyAgent();
      const a = await requestGrant(us, app, key, grantBody(agentId, key), { now: now() });
      const b = await requestGrant(us, app, key, grantBody(agentId, key), { now: now() });
      const token = a.body.agent_token as string;
      const url = `${us}/api/v1/grants/${a.body.grant_id as string}`;
      const call = async (k: AgentKey, target: string, accessToken = token) =>
        http('GET', target, {
          headers: { authorization: `DPoP ${token}`, dpop: await dpopProof(k, 'GET', target, { now: now(), accessToken }) },
        });
      const ok = await call(key, url);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ id: a.body.grant_id, status: 'active' });
      const wrongKey = await call(await newAgentKey(), url);
      expect(wrongKey.status).toBe(401);
      expect(wrongKey.body.reason_code).toBe('agent_token_grant_mismatch');
      const otherGrant = await call(key, `${us}/api/v1/grants/${b.body.grant_id as string}`);
      expect(otherGrant.status).toBe(401);
      expect(otherGrant.body.reason_code).toBe('agent_token_grant_mismatch');
      const wrongAth = await call(key, url, 'ra_agent_something-else');
      expect(wrongAth.status).toBe(401);
      expect(wrongAth.body.reason_code).toBe('dpop_proof_invalid');
      const proof = await dpopProof(key, 'GET', url, { now: now(), accessToken: token });
      expect((await http('GET', url, { headers: { authorization: `DPoP ${token}`, dpop: proof } })).status).toBe(200);
      const replay = await http('GET', url, { headers: { authorization: `DPoP ${token}`, dpop: proof } });
      expect(replay.status).toBe(401);
      expect(replay.body.reason_code).toBe('dpop_proof_replayed');
      const noToken = await http('GET', url, { headers: { dpop: proof } });
      expect(noToken.status).toBe(401);
      expect(noToken.body.reason_code).toBe('agent_token_invalid');
    });
  });

  describe('bad input (step 1 at the edge, never 5xx)', () => {
    let agentId: string;
    beforeAll(async () => {
      agentId = (await readyAgent()).agentId;
    });

    it.each([
      ['an unknown field', { surprise: 1 }, 400, 'invalid_request'],
      ['a wrong type', { scope: 'payments:write' }, 400, 'invalid_request'],
      ['a float amount', { value_bounds: { amount_per_action: 12.5, currency: 'EUR' } }, 400, 'invalid_request'],
      ['a malformed decimal', { value_bounds: { amount_per_action: '1e3', currency: 'EUR' } }, 422, 'validation_failed'],
      ['an unknown value_bounds field', { value_bounds: { amount_per_action: '1', currency: 'EUR', extra: true } }, 400, 'invalid_request'],
      ['a bad valid_until', { valid_until: 'tomorrow' }, 422, 'validation_failed'],
      ['a bad jkt', { agent_dpop_jkt: 'short' }, 422, 'validation_failed'],
      ['unknown agent_metadata fields', { agent_metadata: { agent_colour: 'red' } }, 400, 'agent_credential_malformed'],
      ['an agent_type outside the taxonomy', { agent_metadata: { agent_type: 'robot' } }, 400, 'agent_type_outside_taxonomy'],
      ['an agent_model over 200 characters', { agent_metadata: { agent_model: 'x'.repeat(201) } }, 400, 'agent_credential_malformed'],
    ])('refuses %s', async (_name, override, status, code) => {
      const res = await requestGrant(us, app, key, grantBody(agentId, key, override as Record<string, unknown>), { now: now() });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(code);
      if (code === 'invalid_request' || code === 'validation_failed')
        expect(res.body.detail).toMatchObject({ cascade_step: 1, denial_category: 'authorization_denied' });
    });

    it('refuses malformed JSON, an oversized body, wrong auth and an unknown agent', async () => {
      const headers = { ...bearer(app.token), 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const malformed = await http('POST', `${us}/api/v1/grants`, { headers, raw: '{"agent_id":' });
      expect(malformed.status).toBe(400);
      const oversized = await http('POST', `${us}/api/v1/grants`, { headers, raw: JSON.stringify({ agent_id: 'x'.repeat(1_100_000) }) });
      expect(oversized.status).toBe(413);
      expect(oversized.body.reason_code).toBe('payload_too_large');
      const noAuth = await http('POST', `${us}/api/v1/grants`, { json: grantBody(agentId, key) });
      expect(noAuth.status).toBe(401);
      expect(noAuth.body.detail).toMatchObject({ cascade_step: 2 });
      const unknownAgent = await requestGrant(us, other, key, grantBody(agentId, key), { now: now() });
      expect(unknownAgent.status).toBe(404);
      expect(unknownAgent.body.reason_code).toBe('agent_not_found');
    });
  });
});
