import { readFileSync } from 'node:fs';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { codeFor, startMailDev, type MailDev } from '../support/mail';
import { startRegions, type TestRegions } from '../support/regions';
import { launchChromium } from './support';

/**
 * In headless Chromium: sign up with an email code read from MailDev, add a passkey held by a CDP
 * virtual authenticator, sign out, sign in again with the passkey alone, see the inbox page and
 * remove the passkey; axe-core finds no violation on any page. The region's public origin is
 * http://localhost:<port> (WebAuthn refuses an IP address as the relying party).
 */
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the current page (injected through DevTools, so the page's CSP stays on). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: Array<{ id: string; nodes: unknown[] }>;
  };
  return result.violations.map((v) => `${v.id} (${v.nodes.length})`);
}

describe('people pages in Chromium: email code, then a passkey', () => {
  let mail: MailDev;
  let stack: TestRegions;
  let origin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('people_browser', { regions: ['us'], env: { SMTP_URL: mail.smtpUrl }, publicHost: 'localhost' });
    origin = stack.url.us.replace('127.0.0.1', 'localhost');
    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-GB' });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
    await mail?.stop();
  });

  it('signs up by email code, adds a passkey, signs out and signs in with the passkey', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Every response of the pages' own calls succeeds (the browser's own favicon probe aside).
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) errors.push(`${response.status()} ${response.url()}`);
    });

    await page.goto(`${origin}/people/sign-up`);
    expect(await axeViolations(page)).toEqual([]);
    await page.fill('#people-name-input', 'Katherine Johnson');
    await page.fill('#people-email-input', 'katherine@example.test');
    await page.selectOption('#people-country-input', 'US');
    await page.click('#people-email button[type=submit]');
    await page.waitForSelector('#people-code:not([hidden])');
    await page.fill('#people-code-input', await codeFor(mail, 'katherine@example.test', 1));
    await Promise.all([page.waitForURL(`${origin}/people/account`), page.click('#people-code button[type=submit]')]);
    expect(await page.textContent('#people-signed-in')).toContain('Katherine Johnson');
    expect(await page.textContent('#people-passkeys')).toContain('no passkey');
    expect(await axeViolations(page)).toEqual([]);

    const [cookie] = await context.cookies(origin);
    expect(cookie).toMatchObject({ name: 'svc_person', httpOnly: true, sameSite: 'Lax' });

    await page.click('#people-add-passkey');
    await page.waitForSelector('#people-passkeys [data-remove-passkey]');
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as {
      credentials: Array<{ isResidentCredential: boolean }>;
    };
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    await Promise.all([page.waitForURL(`${origin}/people/sign-in`), page.click('#people-sign-out')]);
    expect(await axeViolations(page)).toEqual([]);
    expect(await context.cookies(origin)).toHaveLength(0);
    const signedOut = await http('GET', `${origin}/people/account`);
    expect(signedOut.status).toBe(303);

    await Promise.all([page.waitForURL(`${origin}/people/account`), page.click('#people-passkey')]);
    expect(await page.textContent('#people-signed-in')).toContain('Katherine Johnson');
    const me = await page.evaluate(
      async () =>
        (await fetch('/people/me')).json() as Promise<{ person: { email: string }; passkeys: Array<{ last_used_at: string | null }> }>,
    );
    expect(me.person.email).toBe('katherine@example.test');
    expect(me.passkeys).toHaveLength(1);
    expect(me.passkeys[0]!.last_used_at).not.toBeNull();

    await page.goto(`${origin}/inbox`);
    expect(await page.textContent('#people-inbox')).toContain('Nothing is waiting for you.');
    expect(await axeViolations(page)).toEqual([]);

    // Removing the passkey from the account page leaves none.
    await page.goto(`${origin}/people/account`);
    await Promise.all([page.waitForURL(`${origin}/people/account`), page.click('[data-remove-passkey]')]);
    await page.waitForSelector('p#people-passkeys');
    expect(await page.evaluate(async () => ((await (await fetch('/people/passkeys')).json()) as unknown[]).length)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('completes a consent that requires sign-in: the inbox lists it, the page sends a signed-out person to sign in and back', async () => {
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Insurance', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const flow = await http('POST', `${origin}/api/v1/flows`, {
      headers: auth,
      json: {
        name: 'Claims',
        locale: 'en',
        presentation: { title: 'Share your claim history' },
        purposes: [{ key: 'claims', label: 'Claim history', mechanism: 'consent' }],
        requirements: ['identity_verification'],
        consent_duration: 'P1Y',
      },
    });
    const flowId = flow.body.id as string;
    expect((await http('POST', `${origin}/api/v1/flows/${flowId}/activate`, { headers: auth })).status).toBe(200);
    const me = await page.evaluate(async () => (await (await fetch('/people/me')).json()) as { person: { id: string } });
    expect(
      (
        await http('POST', `${origin}/api/v1/applications/${created.application.id}/person_links`, {
          headers: auth,
          json: { person_id: me.person.id, subject: { external_id: 'policy-1' } },
        })
      ).status,
    ).toBe(201);
    const minted = await http('POST', `${origin}/api/v1/decisions`, {
      headers: auth,
      json: { kind: 'consent', flow_id: flowId, principal_id: 'policy-1' },
    });
    const token = minted.body.session_token as string;

    // The signed-in person finds it in their inbox and opens it.
    await page.goto(`${origin}/inbox`);
    await Promise.all([page.waitForURL(`${origin}/decisions/${token}`), page.click('#people-inbox a.open')]);
    expect(await page.textContent('#svc-person')).toContain('This decision is for Katherine Johnson');

    // Signed out (a fresh browser), the sign-in step sends the person to sign in, then back.
    const fresh = await browser.newContext({ locale: 'en-GB' });
    const other = await fresh.newPage();
    await other.goto(`${origin}/decisions/${token}`);
    await Promise.all([other.waitForURL(/\/people\/sign-in\?return_to=/), other.click('#svc-action-sign_in')]);
    await other.fill('#people-email-input', 'katherine@example.test');
    await other.click('#people-email button[type=submit]');
    await other.waitForSelector('#people-code:not([hidden])');
    await other.fill('#people-code-input', await codeFor(mail, 'katherine@example.test', 2));
    await Promise.all([other.waitForURL(`${origin}/decisions/${token}`), other.click('#people-code button[type=submit]')]);
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'accept_all']) await other.click(`#svc-action-${action}`);
    await waitFor(async () => (await http('GET', `${origin}/api/v1/decisions/${token}/state`)).body.status === 'fulfilled');
    await fresh.close();

    // Decided, it leaves the inbox.
    await page.goto(`${origin}/inbox`);
    expect(await page.textContent('#people-inbox')).toContain('Nothing is waiting for you.');
  });
});
