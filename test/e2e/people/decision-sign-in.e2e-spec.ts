import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Sign-in in decision sessions: a flow requiring `identity_verification` moves to authenticating
 * only for a signed-in person, binds them (`hosted_sign_in`) and the consent record names them; a
 * session the server bound to a reference linked to a person names that person on the page and
 * accepts only their sign-in.
 */
describe('decision sessions that require the person to sign in', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let signInFlow: string;

  async function signUp(email: string, name: string): Promise<{ cookie: string; personId: string }> {
    const start = await http('POST', `${us}/people/email_codes`, {
      json: { purpose: 'sign_up', email, display_name: name, home_country: 'US' },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${us}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    return { cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0]!, personId: (verified.body.person as { id: string }).id };
  }

  const mint = async (json: Json = {}): Promise<string> => {
    const res = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: { kind: 'consent', flow_id: signInFlow, ...json },
    });
    expect(res.status).toBe(201);
    return res.body.session_token as string;
  };
  const move = (token: string, action: string, cookie?: string) =>
    http('POST', `${us}/api/v1/decisions/${token}/transitions`, { headers: cookie ? { cookie } : {}, json: { action } });

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('people_decisions', { regions: ['us'], env: { SMTP_URL: mail.smtpUrl } });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Bank', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Statements',
        locale: 'en',
        presentation: { title: 'Paperless statements' },
        purposes: [{ key: 'statements', label: 'Email statements', mechanism: 'consent' }],
        requirements: ['identity_verification'],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    signInFlow = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${signInFlow}/activate`, { headers: auth(app.token) })).status).toBe(200);
  });

  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
  });

  it('refuses sign_in without a signed-in person, then binds the person who signs in; the record names them', async () => {
    const { cookie, personId } = await signUp('dorothy@example.test', 'Dorothy Vaughan');
    const token = await mint();
    const anonymous = await move(token, 'sign_in');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.reason_code).toBe('sign_in_required');
    expect((anonymous.body.detail as Json).sign_in_url).toBe(`/people/sign-in?return_to=${encodeURIComponent(`/decisions/${token}`)}`);
    expect((await http('GET', `${us}/api/v1/decisions/${token}/state`)).body.status).toBe('pending');

    const signedIn = await move(token, 'sign_in', cookie);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.status).toBe('authenticating');
    for (const action of ['start_checks', 'review_terms']) expect((await move(token, action, cookie)).status).toBe(200);
    const done = await move(token, 'complete', cookie);
    expect(done.body).toMatchObject({ status: 'fulfilled', outcome: 'granted' });
    const exchanged = await http('POST', `${us}/api/v1/decisions/${token}/exchange`, {
      headers: auth(app.token),
      json: { exchange_token: done.body.exchange_token },
    });
    expect(exchanged.body).toMatchObject({ principal_id: personId, principal_binding: 'hosted_sign_in' });

    const status = await waitFor(async () => {
      const res = await http<{ purposes: Json[] }>(
        'GET',
        `${us}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${personId}`,
        { headers: auth(app.token) },
      );
      return res.body.purposes?.length ? res.body.purposes : undefined;
    });
    expect(status.map((p) => [p.purpose, p.status])).toEqual([['statements', 'granted']]);
  });

  it('names the linked person on the page of a server-bound session and accepts only their sign-in', async () => {
    const mary = await signUp('mary@example.test', 'Mary Jackson');
    const other = await signUp('someone@example.test', 'Someone Else');
    expect(
      (
        await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
          headers: auth(app.token),
          json: { person_id: mary.personId, subject: { external_id: 'cust-7' } },
        })
      ).status,
    ).toBe(201);
    const token = await mint({ principal_id: 'cust-7' });

    const page = await http('GET', `${us}/decisions/${token}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('This decision is for Mary Jackson. If that is you, sign in to confirm it.');

    expect((await move(token, 'sign_in')).body.reason_code).toBe('sign_in_required');
    const wrong = await move(token, 'sign_in', other.cookie);
    expect([wrong.status, wrong.body.reason_code]).toEqual([403, 'principal_mismatch']);
    const right = await move(token, 'sign_in', mary.cookie);
    expect(right.body.status).toBe('authenticating');
    for (const action of ['start_checks', 'review_terms']) await move(token, action, mary.cookie);
    const done = await move(token, 'complete', mary.cookie);
    const exchanged = await http('POST', `${us}/api/v1/decisions/${token}/exchange`, {
      headers: auth(app.token),
      json: { exchange_token: done.body.exchange_token },
    });
    expect(exchanged.body).toMatchObject({ principal_id: 'cust-7', principal_binding: 'api_token' });
  });

  it('shows no name for a reference no person is linked to', async () => {
    const token = await mint({ principal_id: 'cust-unlinked' });
    const page = await http('GET', `${us}/decisions/${token}`);
    expect(page.text).not.toContain('svc-person');
  });

  it("lists the signed-in person's pending decisions on /inbox, with filters, sorting and pages linking to each decision", async () => {
    const ruth = await signUp('ruth@example.test', 'Ruth Teitelbaum');
    expect(
      (
        await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
          headers: auth(app.token),
          json: { person_id: ruth.personId, subject: { external_id: 'cust-9' } },
        })
      ).status,
    ).toBe(201);
    const consent = await mint({ principal_id: 'cust-9', ttl_seconds: 3000 });
    const approval = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: {
        kind: 'approval',
        participants: ['cust-9', 'other-approver'],
        quorum: { type: 'all' },
        trigger_type: 'value',
        ttl_seconds: 1000,
      },
    });
    expect(approval.status).toBe(201);
    const approvalToken = approval.body.session_token as string;
    const unrelated = await mint({ principal_id: 'cust-unrelated' });

    const signedOut = await http('GET', `${us}/inbox?kind=consent`);
    expect([signedOut.status, signedOut.headers.get('location')]).toEqual([
      303,
      `/people/sign-in?return_to=${encodeURIComponent('/inbox?kind=consent')}`,
    ]);

    const page = await http('GET', `${us}/inbox`, { headers: { cookie: ruth.cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'nonce-/);
    const links = [...page.text.matchAll(/class="open" href="[^"]*\/decisions\/([^"]+)"/g)].map((m) => m[1]);
    expect(links).toEqual([approvalToken, consent]);
    expect(page.text).not.toContain(unrelated);
    expect(page.text).toContain('Acme Bank');

    const approvals = await http('GET', `${us}/inbox?kind=approval&trigger_type=value`, { headers: { cookie: ruth.cookie } });
    expect([...approvals.text.matchAll(/\/decisions\/(dts_[A-Za-z0-9_-]+)"/g)].map((m) => m[1])).toEqual([approvalToken]);
    const newest = await http('GET', `${us}/inbox?sort=newest&limit=1`, { headers: { cookie: ruth.cookie } });
    expect([...newest.text.matchAll(/class="open" href="[^"]*\/decisions\/([^"]+)"/g)].map((m) => m[1])).toEqual([approvalToken]);
    const more = /href="(\/inbox\?[^"]*cursor=[^"]+)"/.exec(newest.text)?.[1]?.replace(/&amp;/g, '&');
    expect(more).toBeDefined();
    const second = await http('GET', `${us}${more!}`, { headers: { cookie: ruth.cookie } });
    expect([...second.text.matchAll(/class="open" href="[^"]*\/decisions\/([^"]+)"/g)].map((m) => m[1])).toEqual([consent]);
    expect(second.text).not.toMatch(/cursor=/);

    // The application's JSON inbox lists a person through the references it linked to them.
    const api = await http<{ data: Array<{ session_token: string }> }>('GET', `${us}/api/v1/inbox?principal_id=${ruth.personId}`, {
      headers: auth(app.token),
    });
    expect(api.body.data.map((r) => r.session_token)).toEqual([approvalToken, consent]);
    const stranger = await signUp('stranger@example.test', 'Not Linked');
    const none = await http<{ data: unknown[] }>('GET', `${us}/api/v1/inbox?principal_id=${stranger.personId}`, {
      headers: auth(app.token),
    });
    expect(none.body.data).toEqual([]);

    const bad = await http('GET', `${us}/inbox?kind=signature_request`, { headers: { cookie: ruth.cookie } });
    expect(bad.status).toBe(422);
  });
});
