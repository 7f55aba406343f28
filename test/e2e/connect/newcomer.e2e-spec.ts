import { http, waitFor } from '@svc/testing';
import type * as oidc from 'openid-client';
import { startOAuthRegion, type OAuthRegion } from '../oauth/support';
import { mailsTo } from '../support/mail';
import {
  activeFlow,
  bearer,
  consoleClient,
  consolePerson,
  createAccount,
  createApplication,
  type ApiApplication,
  type Json,
} from './support';

const ORIGIN = 'http://localhost:4581';

/**
 * Issue "Connect and the account", done-when 1: a newcomer, with nothing but the API. They sign up
 * as a person, sign in to the console with openid-client, create an organisation account and a
 * sandbox application, take its publishable key and embed a consent on their page; the consent is
 * recorded, its receipt email reaches them in the SMTP sink, and they end the connection from
 * their connections page.
 */
describe('a newcomer, from sign-up to a recorded consent and back, through the API only', () => {
  let region: OAuthRegion;
  let console: oidc.Configuration;

  beforeAll(async () => {
    region = await startOAuthRegion('newcomer');
    console = await consoleClient(region);
  });
  afterAll(async () => {
    await region?.close();
  });

  it('signs up, creates an account and a sandbox application, embeds a consent, gets its receipt email and ends the connection from the connections page', async () => {
    const url = region.url;

    // 1. Sign up as a person and sign in to the console (authorization code, PAR, PKCE).
    const newcomer = await consolePerson(region, console, 'newcomer@example.test', 'Nadia Newcomer');
    expect(newcomer.id).toMatch(/^usr_us_/);

    // 2. An organisation account: the newcomer is its owner.
    const accountId = await createAccount(url, newcomer.token, 'Nadia’s shop');
    expect(accountId).toMatch(/^acc_us_/);
    const accounts = await http('GET', `${url}/api/v1/accounts`, { headers: bearer(newcomer.token) });
    expect(accounts.body.data).toEqual([expect.objectContaining({ id: accountId, role: 'owner' })]);

    // 3. A sandbox application: tp_dev_… with a pk_test_… key, and its first API token, shown once.
    const created = await createApplication(url, newcomer.token, {
      account_id: accountId,
      name: 'Nadia’s shop (sandbox)',
      environment: 'development',
    });
    expect(created.status).toBe(201);
    const app = created.app as ApiApplication;
    expect(app.id).toMatch(/^tp_dev_[a-z2-7]{20}$/);
    expect(app.pk).toMatch(/^pk_test_[0-9A-Za-z]{32}$/);
    expect(app.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await http('GET', `${url}/api/v1/applications/${app.id}/api_tokens`, { headers: bearer(newcomer.token) });
    expect(JSON.stringify(listed.body)).not.toContain(app.token);

    // 4. The sandbox publishable key, as the console shows it, and the page's origin.
    const keys = await http('GET', `${url}/api/v1/applications/${app.id}/publishable_keys`, { headers: bearer(newcomer.token) });
    expect(keys.status).toBe(200);
    expect((keys.body.data as Json[]).map((k) => [k.key, k.environment])).toEqual([[app.pk, 'development']]);
    const origin = await http('POST', `${url}/api/v1/applications/${app.id}/allowed_origins`, {
      headers: bearer(newcomer.token),
      json: { allowed_origin: { origin: ORIGIN } },
    });
    expect(origin.status).toBe(201);

    // 5. A flow, from the newcomer's server with the application's API token.
    const flowId = await activeFlow(url, app.token);

    // 5b. The newcomer's server links its reference of its signed-in user to the person, so the
    //     platform knows whom the record is about (receipt email, the person's connections).
    const subject = newcomer.id;
    const link = await http('POST', `${url}/api/v1/applications/${app.id}/person_links`, {
      headers: bearer(app.token),
      json: { person_id: newcomer.id, subject: { external_id: subject } },
    });
    expect(link.status).toBe(201);

    // 6. The embedded consent: the server vouches for its signed-in user, the page mints the
    //    session with the publishable key, and the user (signed in on this browser) agrees in the frame.
    const assertion = await http('POST', `${url}/api/v1/decisions/principal_assertions`, {
      headers: bearer(app.token),
      json: { principal_id: subject, flow_id: flowId },
    });
    expect(assertion.status).toBe(201);
    const minted = await http('POST', `${url}/api/v1/decisions`, {
      headers: { 'x-publishable-key': app.pk, origin: ORIGIN },
      json: {
        kind: 'consent',
        flow_id: flowId,
        delivery_mode: 'embed',
        embed_origin: ORIGIN,
        principal_assertion: assertion.body.principal_assertion,
      },
    });
    expect(minted.status).toBe(201);
    const sessionToken = minted.body.session_token as string;
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      const moved = await http('POST', `${url}/api/v1/decisions/${sessionToken}/transitions`, {
        headers: { cookie: newcomer.cookie },
        json: { action },
      });
      expect([action, moved.status]).toEqual([action, 200]);
    }

    // 7. The consent is recorded.
    const purposes = await waitFor(async () => {
      const res = await http<{ purposes: Json[] }>(
        'GET',
        `${url}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${subject}`,
        { headers: bearer(app.token) },
      );
      return res.status === 200 && res.body.purposes.length > 0 ? res.body.purposes : undefined;
    });
    expect(purposes.map((p) => [p.purpose, p.status])).toEqual([
      ['newsletter', 'granted'],
      ['research', 'granted'],
    ]);
    const recordId = purposes[0]!.record_id as string;
    expect(recordId).toMatch(/^crec_/);

    // 8. The receipt email reaches the newcomer in the SMTP sink, with the receipt link.
    const receiptMail = await waitFor(
      async () => (await mailsTo(region.mail, 'newcomer@example.test')).find((m) => /consent receipt/i.test(m.subject)),
      30_000,
      250,
    );
    const receiptLink = `${url}/people/receipts/${recordId}`;
    expect(receiptMail.text).toContain(receiptLink);
    // The link opens the newcomer's own receipt once signed in, and asks anyone else to sign in.
    const receiptPage = await http('GET', receiptLink, { headers: { cookie: newcomer.cookie } });
    expect(receiptPage.status).toBe(200);
    expect(receiptPage.text).toContain('Your consent receipt');
    expect(receiptPage.text).toContain(recordId);
    expect(receiptPage.text).toMatch(/<code id="receipt-digest">[0-9a-f]{64}<\/code>/);
    expect((await http('GET', receiptLink, { redirect: 'manual' })).status).toBe(303);
    expect((await http('GET', `${url}/people/receipts/crec_us_${'a'.repeat(24)}`, { headers: { cookie: newcomer.cookie } })).status).toBe(
      404,
    );
    const stranger = await consolePerson(region, console, 'stranger@example.test', 'Sam Stranger');
    const notTheirs = await http('GET', receiptLink, { headers: { cookie: stranger.cookie } });
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.text).not.toContain(recordId);

    // 9. The newcomer's connections page lists the application; disconnecting it from the page
    //    withdraws the consent, and the consent status says so within 30 s.
    const page = await http('GET', `${url}/connections`, { headers: { cookie: newcomer.cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(app.id);
    const disconnected = await http('POST', `${url}/connections/${app.id}/revoke`, {
      headers: { cookie: newcomer.cookie, origin: url },
      json: {},
    });
    expect(disconnected.status).toBe(200);
    expect(disconnected.body).toMatchObject({ object: 'disconnection', application_id: app.id, withdrawn_consents: [recordId] });
    const withdrawn = await waitFor(
      async () => {
        const res = await http<{ purposes: Json[] }>(
          'GET',
          `${url}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${subject}`,
          { headers: bearer(app.token) },
        );
        return res.status === 200 && res.body.purposes.every((p) => p.status !== 'granted') ? res.body.purposes : undefined;
      },
      30_000,
      250,
    );
    expect(withdrawn.length).toBeGreaterThan(0);
    // The sandbox application no longer holds a consent of the newcomer's.
    const after = await http<{ data: Json[] }>('GET', `${url}/api/v1/connections`, { headers: bearer(newcomer.token) });
    expect(after.status).toBe(200);
    const stillThere = after.body.data.find((c) => c.application_id === app.id);
    expect(((stillThere?.consents as Json[] | undefined) ?? []).filter((c) => c.status === 'active')).toEqual([]);
  });
});
