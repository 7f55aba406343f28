import { decodeEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import * as oidc from 'openid-client';
import { DataSource } from 'typeorm';
import { PASSING_BOUNDS, bearer, createAgent } from '../oap-authorizer/support';
import { launchChromium } from '../hosted-pages/support';
import { personWithAccessToken, startOAuthRegion, type OAuthRegion } from '../oauth/support';

const REDIRECT = 'http://127.0.0.1:5557/callback';
const insecure = { execute: [oidc.allowInsecureRequests] };

interface Person {
  id: string;
  cookie: string;
  token: string;
}

interface ConnectionBody {
  application_id: string;
  application_name: string;
  consents: Array<{ record_id: string }>;
  authorities: Array<{ authority_id: string }>;
  delegations: Array<{ delegation_grant_id: string; role: string }>;
  oauth_grants: Array<{ grant_id: string; client_id: string }>;
}

/** Spec: Connect surface `/connections`, Limits (revocation propagation); issue 25 item 5. */
describe("a signed-in person's connections", () => {
  let region: OAuthRegion;
  let us: string;
  let shop: { id: string; token: string };
  let bank: { id: string; token: string };
  let shopClient: oidc.Configuration;
  let person: Person;
  let helper: Person;

  /** The events of a type a service wrote, by the application their envelope names. */
  const events = async (schema: string, type: string): Promise<Array<{ application_id: string | undefined }>> => {
    const rows: Array<{ payload: Buffer }> = await region.stack.process.us.app
      .get(DataSource)
      .query(`SELECT payload FROM ${schema}.outbox WHERE event_type = $1 ORDER BY seq`, [type]);
    return rows.map((r) => ({
      application_id: (decodeEvent(type, new Uint8Array(r.payload)) as { meta?: { applicationId?: string } }).meta?.applicationId,
    }));
  };

  async function application(name: string): Promise<{ id: string; token: string }> {
    const created = await region.stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name, environment: 'development' }));
    return { id: created.application.id, token: created.apiToken };
  }

  async function clientOf(app: { id: string; token: string }): Promise<oidc.Configuration> {
    const client = await http('POST', `${us}/api/v1/applications/${app.id}/oauth_clients`, {
      headers: bearer(app.token),
      json: { name: 'Client', redirect_uris: [REDIRECT] },
    });
    expect(client.status).toBe(201);
    return oidc.discovery(
      new URL(us),
      client.body.client_id as string,
      undefined,
      oidc.ClientSecretBasic(client.body.client_secret as string),
      insecure,
    );
  }

  /** Links the person as `reference` at the application and records a granted consent for that reference. */
  async function consentAt(app: { id: string; token: string }, reference: string): Promise<string> {
    const link = await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
      headers: bearer(app.token),
      json: { person_id: person.id, subject: { external_id: reference } },
    });
    expect(link.status).toBe(201);
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: bearer(app.token),
      json: {
        name: 'news',
        locale: 'en',
        presentation: { title: 'News' },
        purposes: [{ key: 'news', label: 'News' }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    expect(
      (await http('POST', `${us}/api/v1/flows/${flow.body.id as string}/activate`, { headers: bearer(app.token) })).status,
    ).toBeLessThan(300);
    const record = await http('POST', `${us}/api/v1/consent_records`, {
      headers: bearer(app.token),
      json: {
        flow_id: flow.body.id,
        subject: { external_id: reference },
        decisions: { news: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: '2026-01-02T03:04:05Z',
      },
    });
    expect(record.status).toBeLessThan(300);
    return (record.body.id ?? (record.body.consent_record as Record<string, string>).id) as string;
  }

  /** The application proposes an authority; the person grants it on the hosted page. */
  async function authorityAt(app: { id: string; token: string }): Promise<string> {
    const agentId = await createAgent(us, app, { manifest: true });
    const proposed = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: { agent_id: agentId, ...PASSING_BOUNDS, valid_until: '2027-12-31T00:00:00Z' },
    });
    expect(proposed.status).toBe(201);
    const url = String(proposed.body.proposal_url);
    const answered = await http('POST', `${us}/authorities/${url.slice(url.lastIndexOf('/') + 1)}`, {
      headers: { cookie: person.cookie, origin: us },
      json: { answer: 'grant' },
    });
    expect(answered.body).toEqual({ status: 'active' });
    return String(proposed.body.id);
  }

  const list = () =>
    http<{ data: ConnectionBody[]; has_more: boolean; next_cursor: string | null }>('GET', `${us}/api/v1/connections`, {
      headers: bearer(person.token),
    });

  beforeAll(async () => {
    region = await startOAuthRegion('connect_connections');
    us = region.url;
    shop = await application('Shop');
    bank = await application('Bank');
    shopClient = await clientOf(shop);
    person = await personWithAccessToken(region, shopClient, REDIRECT, { email: 'connected@example.test', name: 'Connected' });
    helper = await personWithAccessToken(region, shopClient, REDIRECT, { email: 'helper@example.test', name: 'Helper' });
  });
  afterAll(() => region?.close());

  it('lists every application connected to the person, with what connects it', async () => {
    const recordId = await consentAt(shop, 'shop-customer-1');
    const authorityId = await authorityAt(shop);
    const offered = await http('POST', `${us}/api/v1/delegations`, {
      headers: bearer(person.token),
      json: {
        type: 'caregiver',
        delegate_person_id: helper.id,
        surfaces: ['me'],
        actions: ['read'],
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(offered.status).toBe(201);
    const bankRecord = await consentAt(bank, 'bank-7');

    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    const byApp = new Map(res.body.data.map((c) => [c.application_id, c]));
    expect([...byApp.keys()].sort()).toEqual([shop.id, bank.id].sort());
    const shopConnection = byApp.get(shop.id)!;
    expect(shopConnection.application_name).toBe('Shop');
    expect(shopConnection.consents.map((c) => c.record_id)).toEqual([recordId]);
    expect(shopConnection.authorities.map((a) => a.authority_id)).toEqual([authorityId]);
    expect(shopConnection.delegations).toEqual([expect.objectContaining({ delegation_grant_id: offered.body.id, role: 'principal' })]);
    expect(shopConnection.oauth_grants).toHaveLength(1);
    expect(byApp.get(bank.id)!.consents.map((c) => c.record_id)).toEqual([bankRecord]);

    // Pages of one, by application.
    const first = await http<{ data: ConnectionBody[]; next_cursor: string }>('GET', `${us}/api/v1/connections?limit=1`, {
      headers: bearer(person.token),
    });
    const second = await http<{ data: ConnectionBody[]; has_more: boolean }>(
      'GET',
      `${us}/api/v1/connections?limit=1&cursor=${first.body.next_cursor}`,
      { headers: bearer(person.token) },
    );
    expect([first.body.data[0]!.application_id, second.body.data[0]!.application_id].sort()).toEqual([shop.id, bank.id].sort());
    expect(second.body.has_more).toBe(false);

    // The other person sees only their own: the OAuth grant they gave, and the delegation offered to them.
    const theirs = await http<{ data: ConnectionBody[] }>('GET', `${us}/api/v1/connections`, { headers: bearer(helper.token) });
    expect(theirs.body.data.map((c) => c.application_id)).toEqual([shop.id]);
    expect(theirs.body.data[0]!.consents).toEqual([]);
    expect(theirs.body.data[0]!.delegations).toEqual([expect.objectContaining({ role: 'delegate' })]);
  });

  it("needs the person's own access token", async () => {
    expect((await http('GET', `${us}/api/v1/connections`)).status).toBe(401);
    expect((await http('GET', `${us}/api/v1/connections`, { headers: bearer(shop.token) })).status).toBe(401);
    expect((await http('DELETE', `${us}/api/v1/connections/${shop.id}`, { headers: bearer(shop.token) })).status).toBe(401);
    const unknown = await http('DELETE', `${us}/api/v1/connections/tp_us_aaaaaaaaaaaaaaaaaaaa`, { headers: bearer(person.token) });
    expect([unknown.status, unknown.body.reason_code]).toEqual([404, 'connection_not_found']);
  });

  it('shows the connections page to the signed-in person and refuses a disconnect from another site', async () => {
    const signedOut = await http('GET', `${us}/connections`);
    expect(signedOut.status).toBe(303);
    const page = await http('GET', `${us}/connections`, { headers: { cookie: person.cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    expect(page.text).toContain(`data-revoke="${shop.id}"`);
    expect(page.text).toContain(`data-revoke="${bank.id}"`);
    const forged = await http('POST', `${us}/connections/${bank.id}/revoke`, {
      headers: { cookie: person.cookie, origin: 'https://evil.example' },
      json: {},
    });
    expect([forged.status, forged.body.reason_code]).toEqual([403, 'origin_not_allowed']);
    const crossSite = await http('POST', `${us}/connections/revoke_all`, {
      headers: { cookie: person.cookie, 'sec-fetch-site': 'cross-site' },
      json: {},
    });
    expect(crossSite.status).toBe(403);
    expect((await http('POST', `${us}/connections/${bank.id}/revoke`, { json: {} })).status).toBe(401);
    expect((await list()).body.data).toHaveLength(2);
  });

  it('disconnects one application from the page: its consents are withdrawn, with the usual consent.record_revoked', async () => {
    const res = await http('POST', `${us}/connections/${bank.id}/revoke`, { headers: { cookie: person.cookie, origin: us }, json: {} });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'disconnection', application_id: bank.id, revoked_authorities: [], revoked_oauth_grants: [] });
    expect(res.body.withdrawn_consents).toHaveLength(1);
    expect((await list()).body.data.map((c) => c.application_id)).toEqual([shop.id]);
    const withdrawn = await events('consent_records', 'consent.record_revoked');
    expect(withdrawn).toEqual([expect.objectContaining({ application_id: bank.id })]);
    const page = await http('GET', `${us}/connections`, { headers: { cookie: person.cookie } });
    expect(page.text).not.toContain(`data-revoke="${bank.id}"`);
  });

  it('disconnects an application through the API: consents, authorities, delegations and OAuth grants end, each with its own event', async () => {
    expect((await http('GET', `${us}/api/v1/me`, { headers: bearer(person.token) })).status).toBe(200);
    const started = Date.now();
    const res = await http<Record<string, string[]>>('DELETE', `${us}/api/v1/connections/${shop.id}`, { headers: bearer(person.token) });
    expect(res.status).toBe(200);
    expect(res.body.withdrawn_consents).toHaveLength(1);
    expect(res.body.revoked_authorities).toHaveLength(1);
    expect(res.body.revoked_delegations).toHaveLength(1);
    expect(res.body.revoked_oauth_grants).toHaveLength(1);

    // The OAuth grant is gone: the person's access token of it no longer works.
    await waitFor(
      async () => ((await http('GET', `${us}/api/v1/me`, { headers: bearer(person.token) })).status === 401 ? true : undefined),
      30_000,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(await events('oap', 'authority.revoked')).toEqual([{ application_id: shop.id }]);
    expect(await events('gateway', 'delegation.revoked')).toEqual([{ application_id: shop.id }]);
    expect(await events('consent_records', 'consent.record_revoked')).toEqual([{ application_id: bank.id }, { application_id: shop.id }]);
    expect(await events('gateway', 'oauth.token_revoked')).toContainEqual({ application_id: shop.id });
    const authority = await http('GET', `${us}/api/v1/authorities/${res.body.revoked_authorities![0]!}`, { headers: bearer(shop.token) });
    expect(authority.body).toMatchObject({ status: 'revoked' });
    // The helper's own OAuth grant to the same application is untouched.
    expect((await http('GET', `${us}/api/v1/me`, { headers: bearer(helper.token) })).status).toBe(200);
  });

  it('disconnects every application at once', async () => {
    const fresh = await personWithAccessToken(region, shopClient, REDIRECT, { email: 'everything@example.test', name: 'Everything' });
    const res = await http<Record<string, unknown>>('DELETE', `${us}/api/v1/connections`, { headers: bearer(fresh.token) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'disconnection', application_id: null });
    expect(res.body.revoked_oauth_grants).toHaveLength(1);
    await waitFor(
      async () => ((await http('GET', `${us}/api/v1/me`, { headers: bearer(fresh.token) })).status === 401 ? true : undefined),
      30_000,
    );
  });

  it('a person disconnects an application by clicking its button on the page, in Chromium', async () => {
    const browserPerson = await personWithAccessToken(region, shopClient, REDIRECT, { email: 'browser@example.test', name: 'Browser' });
    const [name, value] = browserPerson.cookie.split('=') as [string, string];
    const browser = await launchChromium();
    try {
      const ctx = await browser.newContext({ locale: 'en-GB' });
      await ctx.addCookies([{ name, value: browserPerson.cookie.slice(name.length + 1) || value, url: us }]);
      const page = await ctx.newPage();
      const blocked: string[] = [];
      // Every request of the page succeeds (the browser's own favicon probe aside), CSP included.
      page.on('response', (r) => {
        if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) blocked.push(`${r.status()} ${r.url()}`);
      });
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) blocked.push(m.text());
      });
      await page.goto(`${us}/connections`);
      expect(await page.locator('h1').textContent()).toBe('Your connected applications');
      const button = page.locator(`button[data-revoke="${shop.id}"]`);
      expect(await button.textContent()).toBe('Disconnect');
      await Promise.all([page.waitForEvent('load'), button.click()]);
      await page.waitForSelector('p#connections');
      expect(await page.locator('p#connections').textContent()).toBe('No application is connected to you.');
      expect(blocked).toEqual([]);
      await ctx.close();
    } finally {
      await browser.close();
    }
    await waitFor(
      async () => ((await http('GET', `${us}/api/v1/me`, { headers: bearer(browserPerson.token) })).status === 401 ? true : undefined),
      30_000,
    );
  });
});
