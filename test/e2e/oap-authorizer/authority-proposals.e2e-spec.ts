import { BusConnection } from '@svc/bus';
import { AuthorityChangedSchema, decodeSealedEvent, type AuthorityChanged } from '@svc/contracts';
import { http, waitFor } from '@svc/testing';
import { signUp, startOAuthRegion, type OAuthRegion } from '../oauth/support';
import {
  PASSING_BOUNDS,
  bearer,
  createAgent,
  createApp,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from './support';

/** Issue 17 item 2: the application proposes an authority; the signed-in person grants or declines it on the hosted page. */
describe('authority proposals granted by the signed-in person', () => {
  let region: OAuthRegion;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let person: { personId: string; cookie: string };

  beforeAll(async () => {
    region = await startOAuthRegion('oap_authority_proposals');
    us = region.url;
    app = await createApp(region.stack);
    key = await newAgentKey();
    person = await signUp(region, {
      email: 'grantor@example.test',
      name: 'Grantor',
      locale: 'en-US',
      timeZone: 'America/New_York',
      homeCountry: 'US',
    });
  });
  afterAll(() => region?.close());

  const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();
  const grant = (agentId: string) =>
    requestGrant(
      us,
      app,
      key,
      grantBody(agentId, key, { valid_until: inAnHour(), value_bounds: { amount_per_action: '10.00', currency: 'EUR' } }),
      { now: new Date() },
    );
  const VALUE_BOUNDS = { currency: 'EUR', per_action: '50.00', per_month: '200.00', aggregate: '1000.00' };

  async function propose(
    valueBounds: Record<string, string> = VALUE_BOUNDS,
  ): Promise<{ agentId: string; authorityId: string; token: string }> {
    const agentId = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: {
        agent_id: agentId,
        ...PASSING_BOUNDS,
        value_bounds: valueBounds,
        escalation_bounds: { amount_over: '20.00', quorum_type: 'all', approvers: [] },
        valid_until: '2027-12-31T00:00:00Z',
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'authority', agent_id: agentId, principal_id: null, status: 'proposed' });
    const url = String(res.body.proposal_url);
    expect(url).toMatch(new RegExp(`^${us}/authorities/[A-Za-z0-9_-]{43}$`));
    return { agentId, authorityId: String(res.body.id), token: url.slice(url.lastIndexOf('/') + 1) };
  }

  it('a grant under a proposal nobody granted is denied at step 3', async () => {
    const { agentId } = await propose();
    const res = await grant(agentId);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ decision: 'deny', cascade_step: 3, reason_code: 'authority_not_granted' });
  });

  it("the page has the decision pages' design in the application's brand: their stylesheet, its colour and name, a nonce-bound style", async () => {
    expect(
      (await http('PATCH', `${us}/api/v1/applications/${app.id}`, { headers: bearer(app.token), json: { brand_color: '#0F766E' } })).status,
    ).toBe(200);
    const { token } = await propose();
    const res = await http('GET', `${us}/authorities/${token}`, { headers: { cookie: person.cookie, 'accept-language': 'en' } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('border-top:6px solid var(--brand)');
    expect(res.text).toContain(':root{--brand:#0f766e;');
    expect(res.text).toMatch(/<p class="brand"><span>[^<]+<\/span><\/p>/);
    expect(res.text).toContain('<button type="button" class="primary" data-answer="grant">Grant</button>');
    expect(res.text).toMatch(/<html lang="en" dir="ltr">/);
    const nonce = /<style nonce="([^"]+)">/.exec(res.text)?.[1];
    expect(res.headers.get('content-security-policy')).toContain(`'nonce-${nonce}'`);
  });

  it('the page sends a browser without a sign-in to the sign-in page', async () => {
    const { token } = await propose();
    const res = await http('GET', `${us}/authorities/${token}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain(encodeURIComponent(`/authorities/${token}`));
  });

  it('the signed-in person reads the bounds in plain words and grants: the authority is theirs and a grant under it is allowed', async () => {
    const bus = region.stack.process.us.app.get(BusConnection);
    const created: AuthorityChanged[] = [];
    const subscription = bus.nc.subscribe(`${region.stack.prefix}.us.evt.authority.created`);
    void (async () => {
      for await (const msg of subscription) created.push(decodeSealedEvent(AuthorityChangedSchema, msg.data, bus.personalData));
    })();
    const { agentId, authorityId, token } = await propose();
    const pageRes = await http('GET', `${us}/authorities/${token}`, { headers: { cookie: person.cookie, 'accept-language': 'en' } });
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain('may pay up to 50.00 EUR per action');
    expect(pageRes.text).toContain('200.00 EUR a month');
    expect(pageRes.text).toContain('1000.00 EUR in total');
    expect(pageRes.text).toContain('asking you above 20.00 EUR');
    const french = await http('GET', `${us}/authorities/${token}`, { headers: { cookie: person.cookie, 'accept-language': 'fr' } });
    expect(pageRes.text).toContain('>Grant</button>');
    expect(french.text).toContain('peut payer jusqu’à 50.00 EUR par action');
    expect(french.text).toContain('200.00 EUR par mois');
    expect(french.text).toContain('>Accorder</button>');

    const forged = await http('POST', `${us}/authorities/${token}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'grant', principal_id: 'usr_forged' },
    });
    expect(forged.status).toBe(400);
    const answered = await http('POST', `${us}/authorities/${token}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'grant' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: 'active' });
    const authority = await http('GET', `${us}/api/v1/authorities/${authorityId}`, { headers: bearer(app.token) });
    expect(authority.body).toMatchObject({ status: 'active', principal_id: person.personId });
    expect(person.personId).toMatch(/^usr_/);
    // Granted on the page, authority.created names the application for the authorization receipt.
    const event = await waitFor(() => created.find((e) => e.authorityId === authorityId));
    subscription.unsubscribe();
    expect(event.application).toMatchObject({ name: 'oap', jurisdiction: '' });

    const allowed = await grant(agentId);
    expect(allowed.status).toBe(201);
    expect(allowed.body).toMatchObject({ decision: 'allow' });
    const again = await http('POST', `${us}/authorities/${token}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'decline' },
    });
    expect(again.status).toBe(409);
  });

  it("a second grant is denied at step 7 once the month's sum would pass the monthly bound", async () => {
    const { agentId, authorityId, token } = await propose({
      currency: 'EUR',
      per_action: '50.00',
      per_month: '15.00',
      aggregate: '1000.00',
    });
    const answered = await http('POST', `${us}/authorities/${token}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'grant' },
    });
    expect(answered.status).toBe(200);
    const authority = await http('GET', `${us}/api/v1/authorities/${authorityId}`, { headers: bearer(app.token) });
    expect(authority.body).toMatchObject({
      value_bounds: { currency: 'EUR', per_action: '50.00', per_month: '15.00', aggregate: '1000.00' },
    });

    const first = await grant(agentId);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ decision: 'allow' });
    const second = await grant(agentId);
    expect(second.status).toBe(403);
    expect(second.body).toMatchObject({ decision: 'deny', cascade_step: 7, reason_code: 'value_exceeds_monthly' });
  });

  it('refuses a monthly bound that is not a decimal string, naming the field', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: {
        agent_id: agentId,
        ...PASSING_BOUNDS,
        value_bounds: { currency: 'EUR', per_month: 200 },
        valid_until: '2027-12-31T00:00:00Z',
      },
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.detail).toMatchObject({ field: 'value_bounds.per_month' });
  });

  it('a declined proposal stays without a principal and a grant under it is denied', async () => {
    const { agentId, authorityId, token } = await propose();
    const answered = await http('POST', `${us}/authorities/${token}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'decline' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toEqual({ status: 'declined' });
    const authority = await http('GET', `${us}/api/v1/authorities/${authorityId}`, { headers: bearer(app.token) });
    expect(authority.body).toMatchObject({ status: 'declined', principal_id: null });
    const named = await requestGrant(us, app, key, grantBody(agentId, key, { valid_until: inAnHour(), authority_id: authorityId }), {
      now: new Date(),
    });
    expect(named.status).toBe(403);
    expect(named.body).toMatchObject({ cascade_step: 3, reason_code: 'authority_declined' });
    // Unnamed, a declined proposal is not a candidate at all (it never makes the choice ambiguous).
    const unnamed = await grant(agentId);
    expect(unnamed.status).toBe(403);
    expect(unnamed.body).toMatchObject({ cascade_step: 3, reason_code: 'authority_not_found' });
  });

  it('refuses an answer without a sign-in or from another site', async () => {
    const { token } = await propose();
    expect((await http('POST', `${us}/authorities/${token}`, { json: { answer: 'grant' } })).status).toBe(401);
    expect(
      (
        await http('POST', `${us}/authorities/${token}`, {
          headers: { cookie: person.cookie, origin: 'https://evil.example' },
          json: { answer: 'grant' },
        })
      ).status,
    ).toBe(403);
  });
});
