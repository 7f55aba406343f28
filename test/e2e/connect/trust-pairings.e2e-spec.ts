import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
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
} from '../oap-authorizer/support';

interface Pairing {
  id: string;
  status: string;
  role: string;
  scopes: string[];
  issuer_application_id: string;
  counterparty_application_id: string;
  revoked_by: string | null;
}

/** Spec: Connect surface `/trust_pairings`, Authentication rule 10 (counterparty bearer tokens), svc-verify; issue 25 item 4. */
describe('trust pairings and counterparty tokens', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let issuer: TestApp;
  let counterparty: TestApp;
  let stranger: TestApp;
  let key: AgentKey;
  let agentId: string;

  const propose = (by: TestApp, json: Record<string, unknown>) =>
    http<Pairing>('POST', `${us}/api/v1/trust_pairings`, { headers: bearer(by.token), json });
  const move = (by: TestApp, id: string, what: 'accept' | 'decline' | 'revoke') =>
    http<Pairing & { trust_pairing: Pairing; counterparty_token: string }>('POST', `${us}/api/v1/trust_pairings/${id}/${what}`, {
      headers: bearer(by.token),
    });
  const verify = (base: string, token: string, receipt: string, actionCompleted?: boolean) =>
    http('POST', `${base}/.well-known/svc-verify`, {
      headers: bearer(token),
      json: { receipt, ...(actionCompleted === undefined ? {} : { action_completed: actionCompleted }) },
    });
  const consentStatus = (token: string, applicationId: string) =>
    http('GET', `${us}/api/v1/applications/${applicationId}/consent_status?subject[external_id]=customer-1`, { headers: bearer(token) });

  async function receiptOf(app: TestApp, agent: string): Promise<string> {
    const res = await requestGrant(us, app, key, grantBody(agent, key), { now: clock.now() });
    expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
    return res.body.grant_attestation as string;
  }

  async function activePairing(scopes: string[]): Promise<{ pairing: Pairing; token: string }> {
    const proposed = await propose(issuer, { counterparty_application_id: counterparty.id, scopes });
    expect(proposed.status).toBe(201);
    const accepted = await move(counterparty, proposed.body.id, 'accept');
    expect(accepted.status).toBe(200);
    return { pairing: accepted.body.trust_pairing, token: accepted.body.counterparty_token };
  }

  beforeAll(async () => {
    stack = await startRegions('connect_pairings', { clock, regions: ['us', 'eu'] });
    us = stack.url.us;
    eu = stack.url.eu;
    issuer = await createApp(stack, 'issuer');
    counterparty = await createApp(stack, 'verifier');
    stranger = await createApp(stack, 'stranger');
    key = await newAgentKey();
    agentId = await createAgent(us, issuer, { manifest: true });
    await createAuthority(us, issuer, agentId);
  });
  afterAll(() => stack?.close());

  it('pairs with mutual acceptance: proposed by the issuer, seen by both sides, answered only by the counterparty, once', async () => {
    const proposed = await propose(issuer, {
      counterparty_application_id: counterparty.id,
      scopes: ['receipts:verify'],
      name: 'checkout verification',
    });
    expect(proposed.status).toBe(201);
    expect(proposed.body).toMatchObject({
      object: 'trust_pairing',
      status: 'proposed',
      role: 'issuer',
      scopes: ['receipts:verify'],
      name: 'checkout verification',
    });
    expect(proposed.body.id).toMatch(/^tpr_us_[a-z2-7]{20}$/);
    expect(JSON.stringify(proposed.body)).not.toMatch(/ctp_/);

    const duplicate = await propose(issuer, { counterparty_application_id: counterparty.id, scopes: ['consent_status:read'] });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ reason_code: 'trust_pairing_exists' });

    const seen = await http<{ data: Pairing[]; has_more: boolean; next_cursor: string | null }>(
      'GET',
      `${us}/api/v1/trust_pairings?role=counterparty&status=proposed`,
      { headers: bearer(counterparty.token) },
    );
    expect(seen.status).toBe(200);
    expect(seen.body.data.map((p) => [p.id, p.role])).toEqual([[proposed.body.id, 'counterparty']]);

    expect((await move(issuer, proposed.body.id, 'accept')).status).toBe(409);
    expect((await http('GET', `${us}/api/v1/trust_pairings/${proposed.body.id}`, { headers: bearer(stranger.token) })).status).toBe(404);
    expect((await move(stranger, proposed.body.id, 'accept')).status).toBe(404);

    const declined = await move(counterparty, proposed.body.id, 'decline');
    expect(declined.status).toBe(200);
    expect(declined.body).toMatchObject({ status: 'declined', role: 'counterparty' });
    expect((await move(counterparty, proposed.body.id, 'accept')).status).toBe(409);
    expect((await move(issuer, proposed.body.id, 'revoke')).status).toBe(409);
  });

  it('refuses a counterparty that is the issuer itself, unknown, or of another environment', async () => {
    const production = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'live', environment: 'production' }));
    for (const id of [issuer.id, 'tp_us_aaaaaaaaaaaaaaaaaaaa', production.application.id]) {
      const res = await propose(issuer, { counterparty_application_id: id, scopes: ['receipts:verify'] });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ reason_code: 'trust_pairing_counterparty_invalid' });
    }
    expect((await propose(issuer, { counterparty_application_id: counterparty.id, scopes: [] })).status).toBe(422);
    expect((await propose(issuer, { counterparty_application_id: counterparty.id, scopes: ['audit:verify'] })).status).toBe(422);
    expect((await propose(issuer, { counterparty_application_id: counterparty.id, scopes: null })).status).toBe(400);
  });

  it('the accepted pairing issues a counterparty token once, stored only as its digest', async () => {
    const { pairing, token } = await activePairing(['receipts:verify', 'consent_status:read']);
    expect(pairing).toMatchObject({
      status: 'active',
      role: 'counterparty',
      issuer_application_id: issuer.id,
      counterparty_application_id: counterparty.id,
    });
    expect(token).toMatch(/^ctp_us_[A-Za-z0-9_-]{43}$/);
    const read = await http('GET', `${us}/api/v1/trust_pairings/${pairing.id}`, { headers: bearer(issuer.token) });
    expect(JSON.stringify(read.body)).not.toContain(token);
    const stored = await stack.process.us.app
      .get(DataSource)
      .query(`SELECT token_sha256 FROM gateway.trust_pairings WHERE id = $1`, [pairing.id]);
    expect(stored[0].token_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(token.slice(7));
    await move(issuer, pairing.id, 'revoke');
  });

  it("svc-verify accepts the token in every region for the issuer's receipts, and refuses other applications' receipts", async () => {
    const { pairing, token } = await activePairing(['receipts:verify']);
    const receipt = await receiptOf(issuer, agentId);
    for (const base of [us, eu]) {
      const res = await verify(base, token, receipt);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: true, signature: { valid: true }, revocation: { status: 'active' } });
    }
    const otherAgent = await createAgent(us, stranger, { manifest: true });
    await createAuthority(us, stranger, otherAgent);
    const foreign = await receiptOf(stranger, otherAgent);
    const refused = await verify(us, token, foreign, true);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ reason_code: 'receipt_not_paired' });
    // The refused call consumed nothing: the stranger's own check still consumes once.
    const own = await http('POST', `${us}/.well-known/svc-verify`, {
      headers: bearer(stranger.token),
      json: { receipt: foreign, action_completed: true },
    });
    expect(own.body).toMatchObject({ valid: true, consumption: { acknowledged: true } });

    // receipts:verify only: the consent status stays closed to it.
    const status = await consentStatus(token, issuer.id);
    expect(status.status).toBe(403);
    expect(status.body).toMatchObject({ reason_code: 'insufficient_scope', detail: { required_scope: 'consent_status:read' } });
    await move(issuer, pairing.id, 'revoke');
  });

  it("reads the issuer's consent status with consent_status:read, and nothing else", async () => {
    const { pairing, token } = await activePairing(['consent_status:read']);
    const status = await consentStatus(token, issuer.id);
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ object: 'consent_status', application_id: issuer.id });
    expect((await consentStatus(token, counterparty.id)).status).toBe(404);
    expect((await verify(us, token, await receiptOf(issuer, agentId))).status).toBe(403);
    // Never an API token: every other route refuses it as an unknown bearer token.
    for (const [method, path] of [
      ['GET', '/api/v1/me'],
      ['GET', '/api/v1/trust_pairings'],
      ['GET', `/api/v1/applications/${issuer.id}`],
    ] as const) {
      const res = await http(method, `${us}${path}`, { headers: bearer(token) });
      expect(res.status).toBe(401);
    }
    await move(counterparty, pairing.id, 'revoke');
  });

  it("a revoked pairing's token stops working at once, in every region", async () => {
    const { pairing, token } = await activePairing(['receipts:verify', 'consent_status:read']);
    const receipt = await receiptOf(issuer, agentId);
    expect((await verify(eu, token, receipt)).status).toBe(200);
    const revoked = await move(issuer, pairing.id, 'revoke');
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked_by: issuer.id });
    for (const base of [us, eu]) {
      const res = await verify(base, token, receipt);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ reason_code: 'invalid_token' });
    }
    expect((await consentStatus(token, issuer.id)).status).toBe(401);
    // A forged token of the right shape and an unknown region are refused alike.
    expect((await verify(us, `ctp_us_${'A'.repeat(43)}`, receipt)).status).toBe(401);
    expect((await verify(us, `ctp_zz_${'A'.repeat(43)}`, receipt)).status).toBe(401);
    // Revoked is final; the two may pair again.
    expect((await move(counterparty, pairing.id, 'revoke')).status).toBe(409);
    const again = await activePairing(['receipts:verify']);
    expect(again.token).not.toBe(token);
    await move(issuer, again.pairing.id, 'revoke');
  });

  it('lists with cursor pagination', async () => {
    const page1 = await http<{ data: Pairing[]; has_more: boolean; next_cursor: string | null }>(
      'GET',
      `${us}/api/v1/trust_pairings?limit=2`,
      { headers: bearer(issuer.token) },
    );
    expect(page1.status).toBe(200);
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    const page2 = await http<{ data: Pairing[] }>('GET', `${us}/api/v1/trust_pairings?limit=2&cursor=${page1.body.next_cursor}`, {
      headers: bearer(issuer.token),
    });
    expect(page2.body.data[0]!.id).not.toBe(page1.body.data[1]!.id);
    expect((await http('GET', `${us}/api/v1/trust_pairings?limit=201`, { headers: bearer(issuer.token) })).status).toBe(422);
  });
});
