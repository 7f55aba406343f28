import { readFileSync } from 'node:fs';
import { http } from '@svc/testing';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { codeFor, startMailDev, type MailDev } from '../../../../../test/e2e/support/mail';
import { startRegions, type TestRegions } from '../../../../../test/e2e/support/regions';
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
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: Array<{ id: string; nodes: unknown[] }> };
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
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
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
    const { credentials } = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as { credentials: Array<{ isResidentCredential: boolean }> };
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);

    await Promise.all([page.waitForURL(`${origin}/people/sign-in`), page.click('#people-sign-out')]);
    expect(await axeViolations(page)).toEqual([]);
    expect(await context.cookies(origin)).toHaveLength(0);
    const signedOut = await http('GET', `${origin}/people/account`);
    expect(signedOut.status).toBe(303);

    await Promise.all([page.waitForURL(`${origin}/people/account`), page.click('#people-passkey')]);
    expect(await page.textContent('#people-signed-in')).toContain('Katherine Johnson');
    const me = await page.evaluate(async () => (await fetch('/people/me')).json() as Promise<{ person: { email: string }; passkeys: Array<{ last_used_at: string | null }> }>);
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
});
