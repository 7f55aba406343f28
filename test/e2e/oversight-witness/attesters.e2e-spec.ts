import { createHash } from 'node:crypto';
import { http } from '@svc/testing';
import { RpcClient } from '@svc/bus';
import { GrantElevation } from '@svc/oversight-witness';
import { attestationBody, bearer, createApp, createAttester, setMode, startOversightStack, submit, type OversightStack } from './support';

/** Spec: Trusted attester (create, rotate, suspend, unsuspend, destroy, request elevation); Authentication rule 9; Limits (rotation overlap). */
describe('Trusted attesters', () => {
  let stack: OversightStack;
  let app: { id: string; token: string };
  let other: { id: string; token: string };
  const base = () => `${stack.url}/api/v1/trusted_attesters`;
  const heartbeat = (token: string) => http('POST', `${stack.url}/api/v1/oap/attestations/heartbeat`, { headers: bearer(token), json: {} });

  beforeAll(async () => {
    stack = await startOversightStack('ow_attesters');
    app = await createApp(stack);
    other = await createApp(stack, 'other');
    await setMode(stack, app, 'oversight');
  });
  afterAll(() => stack?.close());

  describe('create', () => {
    it('answers 201 with a tat_<region>_<base64url(32)> token shown once and stored only as its SHA-256', async () => {
      const res = await http<{ trusted_attester: Record<string, unknown> }>('POST', base(), {
        headers: bearer(app.token),
        json: { name: 'opa-prod' },
      });
      expect(res.status).toBe(201);
      const attester = res.body.trusted_attester;
      expect(attester).toMatchObject({
        object: 'trusted_attester',
        application_id: app.id,
        name: 'opa-prod',
        status: 'active',
        permissions: ['attestations:submit', 'attestations:heartbeat'],
        scoped_application_id: null,
        previous_token_expires_at: null,
      });
      const token = attester.token as string;
      expect(token).toMatch(/^tat_us_[A-Za-z0-9_-]{43}$/);
      expect(attester.id).toMatch(/^tatr_us_[a-z2-7]{20}$/);

      const rows: Array<Record<string, unknown>> = await stack.dataSource.query(`SELECT * FROM oversight.trusted_attesters WHERE id = $1`, [
        attester.id,
      ]);
      expect(rows[0]?.token_digest).toBe(createHash('sha256').update(token).digest('hex'));
      expect(JSON.stringify(rows)).not.toContain(token);

      const read = await http('GET', `${base()}/${attester.id as string}`, { headers: bearer(app.token) });
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(token);
      expect(read.body).not.toHaveProperty('trusted_attester.token');
      const list = await http<{ data: unknown[] }>('GET', base(), { headers: bearer(app.token) });
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(token);
    });

    it('scopes the attester to the creating application on request', async () => {
      const created = await createAttester(stack, app, { name: 'scoped', scoped_to_application: true });
      expect(created.body.scoped_application_id).toBe(app.id);
    });

    it.each([
      ['an unknown field', { name: 'x', colour: 'red' }, 400, 'invalid_request', 'colour'],
      ['a missing name', {}, 400, 'invalid_request', 'name'],
      ['a name of the wrong type', { name: 7 }, 400, 'invalid_request', 'name'],
      ['an empty name', { name: '' }, 422, 'validation_failed', 'name'],
      ['a 201-character name', { name: 'n'.repeat(201) }, 422, 'validation_failed', 'name'],
      [
        'the operator-gated revocations:trigger',
        { name: 'x', permissions: ['revocations:trigger'] },
        422,
        'validation_failed',
        'permissions',
      ],
      ['an unknown permission', { name: 'x', permissions: ['grants:create'] }, 422, 'validation_failed', 'permissions'],
      ['permissions of the wrong type', { name: 'x', permissions: 'attestations:submit' }, 400, 'invalid_request', 'permissions'],
      [
        'scoped_to_application of the wrong type',
        { name: 'x', scoped_to_application: 'yes' },
        400,
        'invalid_request',
        'scoped_to_application',
      ],
    ])('refuses %s', async (_case, body, status, reason, field) => {
      const res = await http('POST', base(), { headers: bearer(app.token), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ reason_code: reason, detail: { field } });
    });

    it('refuses malformed JSON and an oversized body with 400', async () => {
      const malformed = await http('POST', base(), {
        headers: { ...bearer(app.token), 'content-type': 'application/json' },
        raw: '{"name":',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toMatchObject({ reason_code: 'malformed_json' });
      const huge = await http('POST', base(), {
        headers: { ...bearer(app.token), 'content-type': 'application/json' },
        raw: JSON.stringify({ name: 'x'.repeat(1_100_000) }),
      });
      expect(huge.status).toBe(413);
      expect(huge.body).toMatchObject({ reason_code: 'payload_too_large' });
    });

    it('answers 401 without credentials and for an attester token (management needs the API token)', async () => {
      const none = await http('POST', base(), { json: { name: 'x' } });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ reason_code: 'unauthenticated' });
      const attester = await createAttester(stack, app);
      const withTat = await http('POST', base(), { headers: bearer(attester.token), json: { name: 'x' } });
      expect(withTat.status).toBe(401);
      expect(withTat.body).toMatchObject({ reason_code: 'invalid_token' });
    });
  });

  describe('rotate', () => {
    it('keeps the old token working for the default 24 h overlap and refuses it afterwards', async () => {
      const attester = await createAttester(stack, app);
      const res = await http<{ trusted_attester: Record<string, unknown> }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: {},
      });
      expect(res.status).toBe(200);
      const fresh = res.body.trusted_attester.token as string;
      expect(fresh).toMatch(/^tat_us_[A-Za-z0-9_-]{43}$/);
      expect(fresh).not.toBe(attester.token);
      expect(res.body.trusted_attester.previous_token_expires_at).toBe(new Date(stack.clock.now().getTime() + 86_400_000).toISOString());

      expect((await heartbeat(attester.token)).status).toBe(200);
      expect((await heartbeat(fresh)).status).toBe(200);
      stack.clock.advance(86_400_000 - 1000);
      expect((await heartbeat(attester.token)).status).toBe(200);
      stack.clock.advance(1000);
      const late = await heartbeat(attester.token);
      expect(late.status).toBe(401);
      expect(late.body).toMatchObject({ reason_code: 'invalid_token' });
      expect((await heartbeat(fresh)).status).toBe(200);
    });

    it('honours a configured overlap (overlap_seconds) and 0 ends the old token at once', async () => {
      const attester = await createAttester(stack, app);
      const rotated = await http<{ trusted_attester: { token: string } }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: { overlap_seconds: 60 },
      });
      expect(rotated.status).toBe(200);
      stack.clock.advance(59_000);
      expect((await heartbeat(attester.token)).status).toBe(200);
      stack.clock.advance(1_000);
      expect((await heartbeat(attester.token)).status).toBe(401);

      const second = rotated.body.trusted_attester.token;
      const again = await http<{ trusted_attester: { token: string } }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: { overlap_seconds: 0 },
      });
      expect((await heartbeat(second)).status).toBe(401);
      expect((await heartbeat(again.body.trusted_attester.token)).status).toBe(200);
    });

    it('drops the oldest token when rotating during an overlap: at most two tokens work', async () => {
      const attester = await createAttester(stack, app);
      const r1 = await http<{ trusted_attester: { token: string } }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: {},
      });
      const r2 = await http<{ trusted_attester: { token: string } }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: {},
      });
      expect((await heartbeat(attester.token)).status).toBe(401);
      expect((await heartbeat(r1.body.trusted_attester.token)).status).toBe(200);
      expect((await heartbeat(r2.body.trusted_attester.token)).status).toBe(200);
    });

    it.each([
      ['a negative overlap', { overlap_seconds: -1 }, 422, 'validation_failed'],
      ['an overlap beyond 7 days', { overlap_seconds: 604_801 }, 422, 'validation_failed'],
      ['a fractional overlap', { overlap_seconds: 1.5 }, 400, 'invalid_request'],
      ['an overlap of the wrong type', { overlap_seconds: '60' }, 400, 'invalid_request'],
      ['an unknown field', { overlap: 60 }, 400, 'invalid_request'],
    ])('refuses %s', async (_case, body, status, reason) => {
      const attester = await createAttester(stack, app);
      const res = await http('POST', `${base()}/${attester.id}/rotate`, { headers: bearer(app.token), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ reason_code: reason });
    });
  });

  describe('suspend and unsuspend', () => {
    it('answers a suspended attester 403 attester_suspended, distinct from an invalid token 401 invalid_token', async () => {
      const attester = await createAttester(stack, app);
      const suspended = await http('POST', `${base()}/${attester.id}/suspend`, { headers: bearer(app.token) });
      expect(suspended.status).toBe(200);
      expect(suspended.body).toMatchObject({ trusted_attester: { status: 'suspended', suspended_at: stack.clock.now().toISOString() } });

      const denied = await heartbeat(attester.token);
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ message: expect.any(String), reason_code: 'attester_suspended', detail: { attester_id: attester.id } });
      const attest = await submit(stack, attester.token, attestationBody(app.id));
      expect(attest.status).toBe(403);
      expect(attest.body).toMatchObject({ reason_code: 'attester_suspended' });

      const invalid = await heartbeat(`tat_us_${'A'.repeat(43)}`);
      expect(invalid.status).toBe(401);
      expect(invalid.body).toEqual({ message: expect.any(String), reason_code: 'invalid_token' });
      expect(invalid.headers.get('www-authenticate')).toMatch(/^Bearer/);

      expect((await http('POST', `${base()}/${attester.id}/suspend`, { headers: bearer(app.token) })).status).toBe(200);
      const resumed = await http('POST', `${base()}/${attester.id}/unsuspend`, { headers: bearer(app.token) });
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ trusted_attester: { status: 'active', suspended_at: null } });
      expect((await heartbeat(attester.token)).status).toBe(200);
    });
  });

  describe('destroy', () => {
    it('clears both token slots permanently: every token is 401, later lifecycle calls 410', async () => {
      const attester = await createAttester(stack, app);
      const rotated = await http<{ trusted_attester: { token: string } }>('POST', `${base()}/${attester.id}/rotate`, {
        headers: bearer(app.token),
        json: {},
      });
      const destroyed = await http('DELETE', `${base()}/${attester.id}`, { headers: bearer(app.token) });
      expect(destroyed.status).toBe(200);
      expect(destroyed.body).toMatchObject({ trusted_attester: { status: 'destroyed', destroyed_at: stack.clock.now().toISOString() } });
      const rows: Array<Record<string, unknown>> = await stack.dataSource.query(
        `SELECT token_digest, previous_token_digest FROM oversight.trusted_attesters WHERE id = $1`,
        [attester.id],
      );
      expect(rows[0]).toEqual({ token_digest: null, previous_token_digest: null });
      for (const token of [attester.token, rotated.body.trusted_attester.token]) {
        const res = await heartbeat(token);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ reason_code: 'invalid_token' });
      }
      for (const action of ['rotate', 'suspend', 'unsuspend']) {
        const res = await http('POST', `${base()}/${attester.id}/${action}`, { headers: bearer(app.token), json: {} });
        expect(res.status).toBe(410);
        expect(res.body).toMatchObject({ reason_code: 'attester_destroyed' });
      }
      expect((await http('DELETE', `${base()}/${attester.id}`, { headers: bearer(app.token) })).status).toBe(410);
    });
  });

  describe('ownership', () => {
    it.each(['GET', 'DELETE'])("answers %s of another application's attester exactly like an unknown id (404)", async (method) => {
      const attester = await createAttester(stack, app);
      const foreign = await http(method, `${base()}/${attester.id}`, { headers: bearer(other.token) });
      const unknown = await http(method, `${base()}/tatr_us_${'a'.repeat(20)}`, { headers: bearer(other.token) });
      expect(foreign.status).toBe(404);
      expect(foreign.body).toMatchObject({ reason_code: 'attester_not_found' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ reason_code: 'attester_not_found' });
    });

    it.each(['rotate', 'suspend', 'unsuspend', 'elevation_requests'])(
      'answers POST %s on a foreign or malformed id with 404',
      async (action) => {
        const attester = await createAttester(stack, app);
        const body = action === 'elevation_requests' ? { permission: 'revocations:trigger', rationale: 'needs to revoke grants' } : {};
        for (const id of [attester.id, 'not-an-id']) {
          const res = await http('POST', `${base()}/${id}/${action}`, {
            headers: bearer(id === 'not-an-id' ? app.token : other.token),
            json: body,
          });
          expect(res.status).toBe(404);
          expect(res.body).toMatchObject({ reason_code: 'attester_not_found' });
        }
      },
    );

    it("lists only the calling application's attesters, paginated by cursor", async () => {
      const mine = await http<{ data: Array<{ application_id: string }>; has_more: boolean; next_cursor: string | null }>(
        'GET',
        `${base()}?limit=2`,
        { headers: bearer(app.token) },
      );
      expect(mine.status).toBe(200);
      expect(mine.body.data).toHaveLength(2);
      expect(mine.body.has_more).toBe(true);
      const next = await http<{ data: Array<{ application_id: string }> }>(
        'GET',
        `${base()}?limit=2&cursor=${mine.body.next_cursor as string}`,
        { headers: bearer(app.token) },
      );
      expect(next.status).toBe(200);
      expect(next.body.data.every((a) => a.application_id === app.id)).toBe(true);
      const theirs = await http<{ data: unknown[] }>('GET', base(), { headers: bearer(other.token) });
      expect(theirs.body.data).toEqual([]);
      expect((await http('GET', `${base()}?limit=0`, { headers: bearer(app.token) })).status).toBe(422);
      expect((await http('GET', `${base()}?cursor=garbage`, { headers: bearer(app.token) })).body).toMatchObject({
        reason_code: 'invalid_cursor',
      });
    });
  });

  describe('request elevation', () => {
    it('queues a rationale for an operator; granting adds revocations:trigger', async () => {
      const attester = await createAttester(stack, app);
      const res = await http<{ elevation_request: { id: string } }>('POST', `${base()}/${attester.id}/elevation_requests`, {
        headers: bearer(app.token),
        json: { permission: 'revocations:trigger', rationale: 'Our engine detects compromised agents and must revoke their grants.' },
      });
      expect(res.status).toBe(201);
      expect(res.body.elevation_request).toMatchObject({
        object: 'elevation_request',
        attester_id: attester.id,
        permission: 'revocations:trigger',
        status: 'pending',
      });
      const queue = await http<{ data: Array<{ id: string; status: string }> }>('GET', `${base()}/elevation_requests`, {
        headers: bearer(app.token),
      });
      expect(queue.status).toBe(200);
      expect(queue.body.data).toContainEqual(expect.objectContaining({ id: res.body.elevation_request.id, status: 'pending' }));
      expect((await http<{ data: unknown[] }>('GET', `${base()}/elevation_requests`, { headers: bearer(other.token) })).body.data).toEqual(
        [],
      );

      const unchanged = await http('GET', `${base()}/${attester.id}`, { headers: bearer(app.token) });
      expect(unchanged.body).toMatchObject({
        trusted_attester: { permissions: ['attestations:submit', 'attestations:heartbeat', 'escalations:create'] },
      });

      const granted = await stack.process.app.get(GrantElevation).execute(res.body.elevation_request.id, 'operator:alice');
      expect(granted.status).toBe('granted');
      const after = await http('GET', `${base()}/${attester.id}`, { headers: bearer(app.token) });
      expect(after.body).toMatchObject({ trusted_attester: { permissions: expect.arrayContaining(['revocations:trigger']) } });
      await expect(stack.process.app.get(GrantElevation).execute(res.body.elevation_request.id, 'operator:alice')).rejects.toMatchObject({
        code: 'elevation_request_not_pending',
      });

      const again = await http('POST', `${base()}/${attester.id}/elevation_requests`, {
        headers: bearer(app.token),
        json: { permission: 'revocations:trigger', rationale: 'asking a second time for the same thing' },
      });
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ reason_code: 'permission_already_granted' });
    });

    it.each([
      ['a self-service permission', { permission: 'attestations:submit', rationale: 'long enough rationale' }, 422, 'permission'],
      ['a short rationale', { permission: 'revocations:trigger', rationale: 'short' }, 422, 'rationale'],
      ['a missing rationale', { permission: 'revocations:trigger' }, 400, 'rationale'],
      ['an unknown field', { permission: 'revocations:trigger', rationale: 'long enough rationale', urgent: true }, 400, 'urgent'],
    ])('refuses %s', async (_case, body, status, field) => {
      const attester = await createAttester(stack, app);
      const res = await http('POST', `${base()}/${attester.id}/elevation_requests`, { headers: bearer(app.token), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ detail: { field } });
    });
  });

  describe('permissions checked per call', () => {
    it("answers 403 insufficient_permission when the attester lacks the route's permission", async () => {
      const submitOnly = await createAttester(stack, app, { name: 'submit-only', permissions: ['attestations:submit'] });
      const hb = await heartbeat(submitOnly.token);
      expect(hb.status).toBe(403);
      expect(hb.body).toMatchObject({ reason_code: 'insufficient_permission', detail: { required_permission: 'attestations:heartbeat' } });
      const escalate = await submit(stack, submitOnly.token, attestationBody(app.id, { decision: 'escalate', agent_class: 'perm-check' }));
      expect(escalate.status).toBe(403);
      expect(escalate.body).toMatchObject({
        reason_code: 'insufficient_permission',
        detail: { required_permission: 'escalations:create' },
      });

      const heartbeatOnly = await createAttester(stack, app, { name: 'hb-only', permissions: ['attestations:heartbeat'] });
      const attest = await submit(stack, heartbeatOnly.token, attestationBody(app.id));
      expect(attest.status).toBe(403);
      expect(attest.body).toMatchObject({ reason_code: 'insufficient_permission', detail: { required_permission: 'attestations:submit' } });
    });
  });

  describe('wrong auth and bad input on every management endpoint', () => {
    const routes: Array<[string, (id: string) => string, unknown]> = [
      ['GET', () => '', undefined],
      ['POST', () => '', { name: 'x' }],
      ['GET', () => '/elevation_requests', undefined],
      ['GET', (id) => `/${id}`, undefined],
      ['POST', (id) => `/${id}/rotate`, {}],
      ['POST', (id) => `/${id}/suspend`, {}],
      ['POST', (id) => `/${id}/unsuspend`, {}],
      ['DELETE', (id) => `/${id}`, undefined],
      ['POST', (id) => `/${id}/elevation_requests`, { permission: 'revocations:trigger', rationale: 'a rationale long enough' }],
    ];
    it.each(routes)('%s %s answers 401 without a token, with an attester token and with an unknown token', async (method, path, body) => {
      const attester = await createAttester(stack, app);
      for (const [headers, reason] of [
        [{}, 'unauthenticated'],
        [bearer(attester.token), 'invalid_token'],
        [bearer('no-such-token'), 'invalid_token'],
      ] as const) {
        const res = await http(method, `${base()}${path(attester.id)}`, { headers, json: body });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ reason_code: reason });
      }
    });

    it.each(['suspend', 'unsuspend'])('refuses an unknown field in the %s body with 400', async (action) => {
      const attester = await createAttester(stack, app);
      const res = await http('POST', `${base()}/${attester.id}/${action}`, { headers: bearer(app.token), json: { reason: 'x' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ reason_code: 'invalid_request', detail: { field: 'reason' } });
    });

    it.each(['limit=0', 'limit=abc', 'cursor=bogus', 'sort=asc'])('refuses the elevation queue query %s with 4xx', async (query) => {
      const res = await http('GET', `${base()}/elevation_requests?${query}`, { headers: bearer(app.token) });
      expect(res.status).toBe(query === 'limit=0' ? 422 : 400);
    });
  });

  describe("RPC oversight.authenticate_attester (for oap-authorizer's attester routes)", () => {
    it('resolves a token digest to its attester and answers the same reason codes as the HTTP routes', async () => {
      const rpc = stack.process.app.get(RpcClient);
      const attester = await createAttester(stack, app, { name: 'rpc', scoped_to_application: true });
      const digest = createHash('sha256').update(attester.token).digest('hex');
      const ok = await rpc.call('oversight.authenticate_attester', { tokenSha256: digest, permission: 'attestations:submit' });
      expect({ id: ok.attesterId, app: ok.applicationId, scope: ok.scopeApplicationId, permissions: ok.permissions }).toEqual({
        id: attester.id,
        app: app.id,
        scope: app.id,
        permissions: ['attestations:submit', 'attestations:heartbeat'],
      });
      await expect(
        rpc.call('oversight.authenticate_attester', { tokenSha256: digest, permission: 'revocations:trigger' }),
      ).rejects.toMatchObject({
        code: 'insufficient_permission',
        kind: 'forbidden',
      });
      await expect(rpc.call('oversight.authenticate_attester', { tokenSha256: 'f'.repeat(64), permission: '' })).rejects.toMatchObject({
        code: 'invalid_token',
        kind: 'unauthenticated',
      });
      await expect(rpc.call('oversight.authenticate_attester', { tokenSha256: 'not-hex', permission: '' })).rejects.toMatchObject({
        code: 'invalid_token',
      });
      await http('POST', `${base()}/${attester.id}/suspend`, { headers: bearer(app.token) });
      await expect(rpc.call('oversight.authenticate_attester', { tokenSha256: digest, permission: '' })).rejects.toMatchObject({
        code: 'attester_suspended',
        kind: 'forbidden',
      });
    });
  });
});
