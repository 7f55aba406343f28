import { createHmac, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { http, waitFor } from '@svc/testing';
import { GrantElevation } from '@svc/oversight-witness';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

const b64 = (value: unknown): string => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Spec: well-known svc-verify / svc-decode / oap-revocation-list, OAP revocations, Limits (revocation propagation); issue 3 Deliver 9. */
describe('verification and revocation across regions', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let app: TestApp;
  let counterparty: TestApp;
  let counterpartyUs: TestApp;
  let key: AgentKey;
  let agentId: string;

  const now = () => clock.now();
  // API tokens are regional: a counterparty verifies with a token of the region it calls.
  const verify = (base: string, json: unknown, token = base === us ? counterpartyUs.token : counterparty.token) =>
    http('POST', `${base}/.well-known/svc-verify`, { headers: bearer(token), json });
  async function grant(): Promise<{ grantId: string; receipt: string }> {
    const res = await requestGrant(us, app, key, grantBody(agentId, key), { now: now() });
    expect(res.status).toBe(201);
    return { grantId: res.body.grant_id as string, receipt: res.body.grant_attestation as string };
  }

  beforeAll(async () => {
    stack = await startRegions('oap_verify', { clock, regions: ['us', 'eu'] });
    us = stack.url.us;
    eu = stack.url.eu;
    app = await createApp(stack);
    counterparty = await createApp(stack, 'counterparty', 'eu');
    counterpartyUs = await createApp(stack, 'counterparty-us');
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId);
  });
  afterAll(() => stack?.close());

  it('svc-verify in another region checks the signature and the home region revocation status', async () => {
    const { grantId, receipt } = await grant();
    const res = await verify(eu, { receipt });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      valid: true,
      signature: { valid: true },
      revocation: { status: 'active', revoked_at: null },
      grant_id: grantId,
      iss_role: 'authorizer',
    });
  });

  it('one-shot consumption when action_completed is true', async () => {
    const { grantId, receipt } = await grant();
    const first = await verify(eu, { receipt, action_completed: true });
    expect(first.body).toMatchObject({ valid: true, consumption: { acknowledged: true, grant_id: grantId } });
    const second = await verify(us, { receipt, action_completed: true });
    expect(second.body).toMatchObject({ valid: false, reason_code: 'receipt_consumed' });
  });

  it('a revoked grant fails svc-verify in every region within 30 s; revocations are idempotent', async () => {
    const { grantId, receipt } = await grant();
    const idem = randomUUID();
    const revoked = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: { ...bearer(app.token), 'idempotency-key': idem },
      json: { grant_id: grantId, reason: 'compromised' },
    });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({ object: 'revocation', grant_id: grantId, reason: 'compromised' });
    const replay = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: { ...bearer(app.token), 'idempotency-key': idem },
      json: { grant_id: grantId, reason: 'compromised' },
    });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(revoked.body);
    const reused = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: { ...bearer(app.token), 'idempotency-key': idem },
      json: { grant_id: grantId, reason: 'other' },
    });
    expect(reused.status).toBe(422);
    const again = await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: grantId } });
    expect(again.status).toBe(200);
    const started = Date.now();
    for (const base of [eu, us]) {
      const res = await waitFor(async () => {
        const r = await verify(base, { receipt });
        return r.body.valid === false ? r : undefined;
      }, 30_000);
      expect(res.body).toMatchObject({
        valid: false,
        reason_code: 'grant_revoked',
        signature: { valid: true },
        revocation: { status: 'revoked' },
      });
    }
    expect(Date.now() - started).toBeLessThan(30_000);
    const events = await stack.process.us.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM oap.outbox WHERE event_type = 'grant.revoked'`);
    expect(events[0].n).toBe(1);
  });

  it('lists revocations with cursor pagination and a 60 s cache', async () => {
    const { grantId } = await grant();
    await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: grantId } });
    const first = await http<{ data: Array<{ grant_id: string }>; has_more: boolean; next_cursor: string | null }>(
      'GET',
      `${us}/.well-known/oap-revocation-list?limit=1`,
    );
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(first.body.data).toHaveLength(1);
    expect(first.body.has_more).toBe(true);
    const second = await http<{ data: Array<{ grant_id: string }>; has_more: boolean }>(
      'GET',
      `${us}/.well-known/oap-revocation-list?limit=1&cursor=${first.body.next_cursor as string}`,
    );
    expect(second.body.data[0]!.grant_id).toBe(grantId);
    expect(second.body.has_more).toBe(false);
    const bad = await http('GET', `${us}/.well-known/oap-revocation-list?cursor=garbage`);
    expect(bad.status).toBe(400);
    expect(bad.body.reason_code).toBe('invalid_cursor');
    expect((await http('GET', `${us}/.well-known/oap-revocation-list?limit=0`)).status).toBe(422);
  });

  it('the revocation list publishes a reason code, never the application free-text reason', async () => {
    const { grantId } = await grant();
    const revoked = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: bearer(app.token),
      json: { grant_id: grantId, reason_code: 'key_compromise', reason: 'laptop of jane.doe@example.com stolen' },
    });
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({
      grant_id: grantId,
      reason_code: 'key_compromise',
      reason: 'laptop of jane.doe@example.com stolen',
    });
    const plain = (await grant()).grantId;
    await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: plain, reason: 'no code given' } });
    const list = await http<{ data: Array<Record<string, unknown>> }>('GET', `${us}/.well-known/oap-revocation-list?limit=200`);
    expect(list.body.data.find((entry) => entry.grant_id === grantId)).toEqual({
      grant_id: grantId,
      reason_code: 'key_compromise',
      revoked_at: expect.any(String),
    });
    expect(list.body.data.find((entry) => entry.grant_id === plain)).toEqual({
      grant_id: plain,
      reason_code: 'unspecified',
      revoked_at: expect.any(String),
    });
    expect(list.text).not.toContain('jane.doe');
    const unknownCode = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: bearer(app.token),
      json: { grant_id: (await grant()).grantId, reason_code: 'because' },
    });
    expect(unknownCode.status).toBe(422);
    expect(unknownCode.body).toMatchObject({ detail: { field: 'reason_code' } });
  });

  it('svc-decode returns the payload anonymously without verifying', async () => {
    const { grantId, receipt } = await grant();
    const res = await http('POST', `${eu}/.well-known/svc-decode`, { json: { receipt } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      verified: false,
      header: { alg: 'EdDSA', typ: 'oap+jwt' },
      payload: { grant_id: grantId, iss_role: 'authorizer' },
    });
    const bad = await http('POST', `${eu}/.well-known/svc-decode`, { json: { receipt: 'a.b' } });
    expect(bad.status).toBe(400);
    expect(bad.body.reason_code).toBe('receipt_malformed');
  });

  describe('forged JWS are refused', () => {
    let receipt: string;
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    beforeAll(async () => {
      receipt = (await grant()).receipt;
      const [h, p] = receipt.split('.') as [string, string];
      header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    });

    it('alg none', async () => {
      const res = await verify(eu, { receipt: `${b64({ ...header, alg: 'none' })}.${b64(claims)}.` });
      expect(res.body).toMatchObject({ valid: false, reason_code: expect.stringMatching(/receipt_malformed|algorithm_not_allowed/) });
    });

    it('HS256 signed with the public key', async () => {
      const jwks = await http<{ keys: Array<{ kid: string; x: string }> }>('GET', `${us}/.well-known/jwks.json`);
      const publicKey = jwks.body.keys.find((k) => k.kid === header.kid)!;
      const input = `${b64({ ...header, alg: 'HS256' })}.${b64(claims)}`;
      const forged = `${input}.${createHmac('sha256', Buffer.from(publicKey.x, 'base64url')).update(input).digest('base64url')}`;
      expect((await verify(eu, { receipt: forged })).body).toMatchObject({ valid: false, reason_code: 'algorithm_not_allowed' });
    });

    it('unknown kid (signed by a key of our own)', async () => {
      const { privateKey } = generateKeyPairSync('ed25519');
      const input = `${b64({ ...header, kid: 'oap-us-v99' })}.${b64(claims)}`;
      const forged = `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
      expect((await verify(eu, { receipt: forged })).body).toMatchObject({ valid: false, reason_code: 'unknown_kid' });
    });

    it('a receipt signed by another key reveals nothing about the grant it names, revoked or not', async () => {
      const active = (await grant()).grantId;
      const revoked = (await grant()).grantId;
      expect((await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: revoked } })).status).toBe(
        201,
      );
      const { privateKey } = generateKeyPairSync('ed25519');
      const forge = (grantId: string): string => {
        const input = `${b64(header)}.${b64({ ...claims, grant_id: grantId })}`;
        return `${input}.${sign(null, Buffer.from(input), privateKey).toString('base64url')}`;
      };
      const answers = await Promise.all([active, revoked].map(async (grantId) => (await verify(eu, { receipt: forge(grantId) })).body));
      expect(answers[0]).toEqual({
        valid: false,
        reason_code: 'signature_invalid',
        signature: { valid: false, reason_code: 'signature_invalid' },
        revocation: { status: 'not_checked', revoked_at: null },
        grant_id: null,
        iss_role: null,
        claims: null,
      });
      expect(answers[1]).toEqual(answers[0]);
    });

    it('tampered payload', async () => {
      const [h, , s] = receipt.split('.');
      expect((await verify(eu, { receipt: `${h}.${b64({ ...claims, value: '99.00' })}.${s}` })).body).toMatchObject({
        valid: false,
        reason_code: 'signature_invalid',
      });
    });

    it('expired, and iat in the future', async () => {
      clock.advance(2 * 3600_000);
      expect((await verify(eu, { receipt })).body).toMatchObject({ valid: false, reason_code: 'expired' });
      clock.set('2026-03-04T10:30:00.000Z');
      const fresh = (await grant()).receipt;
      clock.advance(-3600_000);
      expect((await verify(eu, { receipt: fresh })).body).toMatchObject({ valid: false, reason_code: 'issued_in_future' });
      clock.set('2026-03-04T10:30:00.000Z');
    });
  });

  describe('bad input', () => {
    it('svc-verify needs a counterparty bearer and a well-formed body', async () => {
      expect((await http('POST', `${eu}/.well-known/svc-verify`, { json: { receipt: 'a.b.c' } })).status).toBe(401);
      expect((await verify(eu, { receipt: 'a.b.c', extra: 1 })).status).toBe(400);
      expect((await verify(eu, { action_completed: true })).status).toBe(400);
      expect((await verify(eu, { receipt: 'x', action_completed: 'yes' })).status).toBe(400);
      const garbage = await verify(eu, { receipt: 'not-a-jws' });
      expect(garbage.status).toBe(400);
      expect(garbage.body.reason_code).toBe('receipt_malformed');
      expect((await verify(eu, { receipt: 'x'.repeat(20_000) })).status).toBe(422);
    });

    it('revocations: unknown or foreign grant 404, foreign region 421, bad body 400, bad key 400', async () => {
      const { grantId } = await grant();
      const foreign = await createApp(stack, 'foreign');
      expect(
        (await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(foreign.token), json: { grant_id: grantId } })).status,
      ).toBe(404);
      expect(
        (
          await http('POST', `${us}/api/v1/oap/revocations`, {
            headers: bearer(app.token),
            json: { grant_id: 'ath_us_aaaaaaaaaaaaaaaaaaaaaaaa' },
          })
        ).body.reason_code,
      ).toBe('grant_not_found');
      expect(
        (await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: { grant_id: grantId, extra: 1 } })).status,
      ).toBe(400);
      expect((await http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(app.token), json: {} })).status).toBe(400);
      expect(
        (
          await http('POST', `${us}/api/v1/oap/revocations`, {
            headers: { ...bearer(app.token), 'idempotency-key': 'has space' },
            json: { grant_id: grantId },
          })
        ).body.reason_code,
      ).toBe('idempotency_key_invalid');
      expect((await http('POST', `${us}/api/v1/oap/revocations`, { json: { grant_id: grantId } })).status).toBe(401);
    });
  });
  it('a trusted attester revokes only with the operator-granted revocations:trigger permission (spec: Authentication rule 9)', async () => {
    const created = await http<{ trusted_attester: { id: string; token: string } }>('POST', `${us}/api/v1/trusted_attesters`, {
      headers: bearer(app.token),
      json: { name: 'policy-engine' },
    });
    expect(created.status).toBe(201);
    const attester = created.body.trusted_attester;
    const { grantId } = await grant();
    const revokeAs = (token: string) =>
      http('POST', `${us}/api/v1/oap/revocations`, { headers: bearer(token), json: { grant_id: grantId, reason: 'engine' } });

    const withoutPermission = await revokeAs(attester.token);
    expect([withoutPermission.status, withoutPermission.body.reason_code]).toEqual([403, 'insufficient_permission']);
    const unknown = await revokeAs(`tat_us_${'A'.repeat(43)}`);
    expect([unknown.status, unknown.body.reason_code]).toEqual([401, 'invalid_token']);

    const requested = await http<{ elevation_request: { id: string } }>(
      'POST',
      `${us}/api/v1/trusted_attesters/${attester.id}/elevation_requests`,
      {
        headers: bearer(app.token),
        json: { permission: 'revocations:trigger', rationale: 'the engine must revoke compromised agents' },
      },
    );
    expect(requested.status).toBe(201);
    await stack.process.us.app.get(GrantElevation).execute(requested.body.elevation_request.id, 'operator@example.com');

    const suspended = await http('POST', `${us}/api/v1/trusted_attesters/${attester.id}/suspend`, { headers: bearer(app.token), json: {} });
    expect(suspended.status).toBe(200);
    const whileSuspended = await revokeAs(attester.token);
    expect([whileSuspended.status, whileSuspended.body.reason_code]).toEqual([403, 'attester_suspended']);
    await http('POST', `${us}/api/v1/trusted_attesters/${attester.id}/unsuspend`, { headers: bearer(app.token), json: {} });

    const revoked = await revokeAs(attester.token);
    expect(revoked.status).toBe(201);
    expect(revoked.body).toMatchObject({ object: 'revocation', grant_id: grantId, reason: 'engine' });
  });
});
