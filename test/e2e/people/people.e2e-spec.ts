import { CreateApplication, CreateApplicationCommand, SignInFailureReports } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

/** Person accounts and email-code sign-in over HTTP, with codes read from a real SMTP sink. */
describe('people: sign-up and sign-in by email code', () => {
  const clock = new FakeClock('2026-11-25T10:00:00.000Z');
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  /** Every call comes from the test's one address; the per-client limits stay above what the file sends. */
  const client = (): Record<string, string> => ({});

  const cookieOf = (setCookie: string | null): string => (setCookie ?? '').split(';')[0]!;

  async function signUp(email: string, name = 'Ada Lovelace'): Promise<{ cookie: string; personId: string; setCookie: string }> {
    const headers = client();
    const start = await http('POST', `${us}/people/email_codes`, {
      headers,
      json: {
        purpose: 'sign_up',
        email,
        display_name: name,
        home_country: 'US',
        locale: 'fr-FR',
        time_zone: 'Europe/Paris',
        return_to: '/people/account',
      },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${us}/people/email_codes/verify`, {
      headers,
      json: { challenge_id: start.body.challenge_id, code },
    });
    expect(verified.status).toBe(200);
    const setCookie = verified.headers.get('set-cookie') ?? '';
    return { cookie: cookieOf(setCookie), personId: (verified.body.person as { id: string }).id, setCookie };
  }

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('people', {
      clock,
      regions: ['us'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Sign-in <no-reply@example.test>' },
    });
    us = stack.url.us;
  });

  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
  });

  it('signs up with a code from the email: a usr_us_ person with a verified email, and an HttpOnly SameSite=Lax cookie', async () => {
    const { cookie, personId, setCookie } = await signUp('ada@example.test');
    expect(personId).toMatch(/^usr_us_[a-z2-7]{20}$/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    const me = await http('GET', `${us}/people/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.person).toMatchObject({
      id: personId,
      email: 'ada@example.test',
      email_verified: true,
      display_name: 'Ada Lovelace',
      locale: 'fr-FR',
      time_zone: 'Europe/Paris',
      home_country: 'US',
    });
    const page = await http('GET', `${us}/people/account`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ada Lovelace');
  });

  it('signs in again with a new code; a code works once; sign-out ends the session', async () => {
    await signUp('grace@example.test', 'Grace Hopper');
    const headers = client();
    const start = await http('POST', `${us}/people/email_codes`, { headers, json: { purpose: 'sign_in', email: 'Grace@Example.test' } });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, 'grace@example.test', 2);
    const first = await http('POST', `${us}/people/email_codes/verify`, { headers, json: { challenge_id: start.body.challenge_id, code } });
    expect(first.status).toBe(200);
    const again = await http('POST', `${us}/people/email_codes/verify`, { headers, json: { challenge_id: start.body.challenge_id, code } });
    expect(again.status).toBe(410);
    expect(again.body.reason_code).toBe('email_code_expired');
    const cookie = cookieOf(first.headers.get('set-cookie'));
    expect((await http('GET', `${us}/people/me`, { headers: { cookie } })).status).toBe(200);
    const out = await http('POST', `${us}/people/sign_out`, { headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    const after = await http('GET', `${us}/people/me`, { headers: { cookie } });
    expect(after.status).toBe(401);
    expect(after.body.reason_code).toBe('sign_in_required');
  });

  it('accepts at most 5 wrong tries per code, then the code is dead even when right', async () => {
    await signUp('alan@example.test', 'Alan Turing');
    const headers = client();
    const start = await http('POST', `${us}/people/email_codes`, { headers, json: { purpose: 'sign_in', email: 'alan@example.test' } });
    const code = await codeFor(mail, 'alan@example.test', 2);
    const wrong = code === '000000' ? '111111' : '000000';
    const left: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await http('POST', `${us}/people/email_codes/verify`, {
        headers,
        json: { challenge_id: start.body.challenge_id, code: wrong },
      });
      expect(res.status).toBe(401);
      expect(res.body.reason_code).toBe('email_code_invalid');
      left.push((res.body.detail as { attempts_left: number }).attempts_left);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    const right = await http('POST', `${us}/people/email_codes/verify`, { headers, json: { challenge_id: start.body.challenge_id, code } });
    expect(right.status).toBe(410);
  });

  it('never says whether an address has an account: an unknown address gets a note, no code', async () => {
    const res = await http('POST', `${us}/people/email_codes`, {
      headers: client(),
      json: { purpose: 'sign_in', email: 'nobody@example.test' },
    });
    expect(res.status).toBe(202);
    const mails = await (async () => {
      for (let i = 0; i < 100; i += 1) {
        const found = await mailsTo(mail, 'nobody@example.test');
        if (found.length) return found;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    })();
    expect(mails).toHaveLength(1);
    expect(`${mails[0]!.subject} ${mails[0]!.text ?? ''}`).not.toMatch(/\b\d{6}\b/);
    expect(mails[0]!.text).toContain('/people/sign-up');
  });

  it('limits code emails per address: the 6th within the window answers 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 6; i += 1) {
      const res = await http('POST', `${us}/people/email_codes`, {
        headers: client(),
        json: { purpose: 'sign_in', email: 'busy@example.test' },
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('limits code emails per client address across addresses: the 21st answers 429', async () => {
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    const statuses: number[] = [];
    for (let i = 0; i < 21; i += 1)
      statuses.push(
        (await http('POST', `${us}/people/email_codes`, { headers, json: { purpose: 'sign_in', email: `spray${i}@example.test` } })).status,
      );
    expect(statuses.slice(0, 20).every((s) => s === 202)).toBe(true);
    expect(statuses[20]).toBe(429);
    // Another client is not affected.
    expect(
      (
        await http('POST', `${us}/people/email_codes`, {
          headers: { 'x-forwarded-for': '203.0.113.10' },
          json: { purpose: 'sign_in', email: 'spray0@example.test' },
        })
      ).status,
    ).toBe(202);
  });

  it('sends a sign-up whose home country lives in another region there (421 with home_country)', async () => {
    const res = await http('POST', `${us}/people/email_codes`, {
      headers: client(),
      json: { purpose: 'sign_up', email: 'lise@example.test', display_name: 'Lise Meitner', home_country: 'DE' },
    });
    expect(res.status).toBe(421);
    expect(res.body.home_country).toBe('DE');
    expect(res.body.detail).toMatchObject({ home_region: 'eu', home_country: 'DE' });
    expect(await mailsTo(mail, 'lise@example.test')).toHaveLength(0);
  });

  it('refuses a cookie-authenticated call from another origin', async () => {
    const res = await http('POST', `${us}/people/email_codes`, {
      headers: { ...client(), origin: 'https://evil.example' },
      json: { purpose: 'sign_in', email: 'ada@example.test' },
    });
    expect(res.status).toBe(403);
    expect(res.body.reason_code).toBe('origin_not_allowed');
  });

  it('lets an application link its subject references to a person, idempotently; the person sees and removes the link', async () => {
    const { cookie, personId } = await signUp('marie@example.test', 'Marie Curie');
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Health', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const path = `${us}/api/v1/applications/${created.application.id}/person_links`;
    const first = await http('POST', path, { headers: auth, json: { person_id: personId, subject: { external_id: 'cust-42' } } });
    expect(first.status).toBe(201);
    expect(first.body.person_link).toMatchObject({
      object: 'person_link',
      person_id: personId,
      subject: { kind: 'external_id', value: 'cust-42' },
    });
    const retry = await http('POST', path, { headers: auth, json: { person_id: personId, subject: { external_id: 'cust-42' } } });
    expect(retry.status).toBe(200);
    expect((retry.body.person_link as { id: string }).id).toBe((first.body.person_link as { id: string }).id);
    expect(
      (await http('POST', path, { headers: auth, json: { person_id: personId, subject: { email: 'Marie@Example.test' } } })).status,
    ).toBe(201);
    const both = await http('POST', path, {
      headers: auth,
      json: { person_id: personId, subject: { external_id: 'x', email: 'y@example.test' } },
    });
    expect(both.status).toBe(422);
    expect(both.body.detail).toMatchObject({ field: 'subject' });
    const foreign = await http('POST', path, {
      headers: auth,
      json: { person_id: 'usr_eu_aaaaaaaaaaaaaaaaaaaa', subject: { external_id: 'cust-43' } },
    });
    expect(foreign.status).toBe(421);
    expect(foreign.body.home_country).toBe('DE');
    const foreignLink = await http('DELETE', `${path}/plk_eu_aaaaaaaaaaaaaaaaaaaa`, { headers: auth });
    expect([foreignLink.status, foreignLink.body.home_country]).toEqual([421, 'DE']);
    const foreignOwnLink = await http('DELETE', `${us}/people/links/plk_ap_aaaaaaaaaaaaaaaaaaaa`, { headers: { cookie } });
    expect([foreignOwnLink.status, foreignOwnLink.body.home_country]).toEqual([421, 'SG']);
    const page1 = await http('GET', `${path}?limit=1`, { headers: auth });
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ has_more: true });
    const page2 = await http('GET', `${path}?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor as string)}`, { headers: auth });
    expect(page2.body).toMatchObject({ has_more: false });
    const me = await http('GET', `${us}/people/me`, { headers: { cookie } });
    const links = me.body.links as Array<{ id: string; application_name: string }>;
    expect(links.map((l) => l.application_name)).toEqual(['Acme Health', 'Acme Health']);
    expect((await http('DELETE', `${us}/people/links/${links[0]!.id}`, { headers: { cookie } })).status).toBe(204);
    const after = await http('GET', path, { headers: auth });
    expect((after.body.data as unknown[]).length).toBe(1);
  });

  it('records people events in the audit chain, sign-in failures as one aggregate per window, with no email or code', async () => {
    const db = stack.process.us.app.get(DataSource);
    const entries = async (type: string): Promise<Array<{ canonical: string }>> =>
      db.query(`SELECT canonical FROM audit.entries WHERE entry_type = $1 ORDER BY idx`, [type]);
    await waitFor(async () => (await entries('person.created')).length >= 4 && (await entries('person.email_verified')).length >= 4);
    clock.advance(16 * 60_000);
    await stack.process.us.app.get(SignInFailureReports).reportClosedWindows();
    const failures = await waitFor(async () => {
      const rows = await entries('person.sign_in_failures');
      return rows.length ? rows : undefined;
    });
    const invalid = failures
      .map((r) => JSON.parse(r.canonical) as Record<string, unknown>)
      .find((e) => JSON.stringify(e).includes('code_invalid'));
    expect(JSON.stringify(invalid)).toMatch(/"failures":5\b/);
    const all = (await db.query(`SELECT canonical FROM audit.entries WHERE entry_type LIKE 'person.%'`)) as Array<{ canonical: string }>;
    for (const row of all) expect(row.canonical).not.toMatch(/@example\.test|\b\d{6}\b/);
  });
});
