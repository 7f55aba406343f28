import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

/**
 * Spec: Decision session, Consent token, Versioning 2–3, residency. Issue 4 end to end: every
 * service of a region composed (monolithic mode), through the region's router.
 */
describe('flows and decision sessions through the router', () => {
  const clock = new FakeClock('2026-04-01T08:00:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string; pk: string };
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });

  beforeAll(async () => {
    stack = await startRegions('decisions', { clock, regions: ['us'] });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'e2e shop', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken, pk: created.publishableKey };
    await http('POST', `${us}/api/v1/applications/${app.id}/allowed_origins`, {
      headers: auth(app.token),
      json: { allowed_origin: { origin: 'http://localhost:3000' } },
    });
  });
  afterAll(() => stack?.close());

  it('creates and activates a flow, mints from the browser, walks to fulfilled, verifies once and exchanges once', async () => {
    const flow = await http<{ id: string }>('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Signup',
        locale: 'en',
        presentation: { title: 'Create your account' },
        purposes: [{ key: 'account', label: 'Account', mechanism: 'contract', required: true }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    const draft = await http('POST', `${us}/api/v1/decisions`, {
      headers: { 'x-publishable-key': app.pk, origin: 'http://localhost:3000' },
      json: { kind: 'consent', flow_id: flow.body.id, embed_origin: 'http://localhost:3000' },
    });
    expect([draft.status, draft.body.reason_code]).toEqual([409, 'flow_not_active']);
    expect((await http('POST', `${us}/api/v1/flows/${flow.body.id}/activate`, { headers: auth(app.token) })).status).toBe(200);

    const minted = await http('POST', `${us}/api/v1/consent_sessions`, {
      headers: { 'x-publishable-key': app.pk, origin: 'http://localhost:3000' },
      json: { flow_id: flow.body.id, delivery_mode: 'popup', embed_origin: 'http://localhost:3000' },
    });
    expect(minted.status).toBe(201);
    expect(minted.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(minted.headers.get('sunset')).toMatch(/GMT$/);
    const token = minted.body.session_token as string;
    expect(minted.body.decision_url).toBe(`${us}/decisions/${token}`);

    let last = minted;
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      last = await http('POST', `${us}/api/v1/decisions/${token}/transitions`, { json: { action } });
      expect(last.status).toBe(200);
    }
    expect(last.body.status).toBe('fulfilled');
    const verify = () =>
      http('POST', `${us}/api/v1/decisions/consent_tokens/verify`, {
        headers: auth(app.token),
        json: { consent_token: last.body.consent_token },
      });
    expect((await verify()).body).toEqual({ valid: true, status: 'fulfilled' });
    expect((await verify()).body).toEqual({ valid: false, status: 'expired' });
    const exchange = () =>
      http('POST', `${us}/api/v1/decisions/${token}/exchange`, {
        headers: auth(app.token),
        json: { exchange_token: last.body.exchange_token },
      });
    expect((await exchange()).body).toMatchObject({ outcome: 'granted', flow_id: flow.body.id, flow_version: 1 });
    expect((await exchange()).status).toBe(409);
  });

  it('lets a minted approval expire by the clock and drops it from the inbox', async () => {
    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: { kind: 'approval', principal_id: 'ops', trigger_type: 'time', ttl_seconds: 120 },
    });
    expect(minted.status).toBe(201);
    const inbox = () => http<{ data: unknown[] }>('GET', `${us}/api/v1/inbox?principal_id=ops`, { headers: auth(app.token) });
    expect((await inbox()).body.data).toHaveLength(1);
    clock.advance(121_000);
    expect((await inbox()).body.data).toHaveLength(0);
    await waitFor(
      async () =>
        (await http('GET', `${us}/api/v1/decisions/${minted.body.session_token as string}`, { headers: auth(app.token) })).body.status ===
        'expired',
    );
  });

  it("answers 421 for another region's flow without resource data", async () => {
    const res = await http('GET', `${us}/api/v1/flows/flw_eu_abcdefghijklmnopqrst`, { headers: auth(app.token) });
    expect(res.status).toBe(421);
    expect(res.body.reason_code).toBe('wrong_region');
  });
});
