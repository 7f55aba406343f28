import { readFileSync } from 'node:fs';
import { http } from '@svc/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signUp, startOAuthRegion, type OAuthRegion } from '../oauth/support';
import { PASSING_BOUNDS, bearer, createAgent, createApp, type TestApp } from '../oap-authorizer/support';
import { launchChromium } from './support';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** Issue 17 item 2: the authority proposal page in the decision pages' design and the application's brand, in Chromium, with axe-core. */
describe('the hosted authority proposal page in Chromium', () => {
  let region: OAuthRegion;
  let us: string;
  let app: TestApp;
  let person: { personId: string; cookie: string };
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    region = await startOAuthRegion('authority_page');
    us = region.url;
    app = await createApp(region.stack, 'Acme Pay');
    expect(
      (await http('PATCH', `${us}/api/v1/applications/${app.id}`, { headers: bearer(app.token), json: { brand_color: '#0F766E' } })).status,
    ).toBe(200);
    person = await signUp(region, {
      email: 'grantor@example.test',
      name: 'Grantor',
      locale: 'en-US',
      timeZone: 'America/New_York',
      homeCountry: 'US',
    });
    browser = await launchChromium();
    // axe is injected as a script: only this context bypasses the page's CSP to let it in.
    context = await browser.newContext({ bypassCSP: true });
    const [name, ...value] = person.cookie.split(';')[0]!.split('=');
    await context.addCookies([{ name: name!, value: value.join('='), url: us }]);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await region?.close();
  });

  async function propose(): Promise<{ authorityId: string; url: string }> {
    const agentId = await createAgent(us, app, { manifest: true });
    const res = await http('POST', `${us}/api/v1/authorities/proposals`, {
      headers: bearer(app.token),
      json: {
        agent_id: agentId,
        ...PASSING_BOUNDS,
        value_bounds: { currency: 'EUR', per_action: '50.00', aggregate: '200.00' },
        escalation_bounds: { amount_over: '20.00', quorum_type: 'all', approvers: [] },
        valid_until: '2027-12-31T00:00:00Z',
      },
    });
    expect(res.status).toBe(201);
    return { authorityId: String(res.body.id), url: String(res.body.proposal_url) };
  }

  async function violations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
    return result.violations.map(
      (v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
    );
  }

  it('shows the bounds in plain words in the brand colour, with 0 axe-core violations at desktop and mobile width, and grants on click', async () => {
    const { authorityId, url } = await propose();
    const page = await context.newPage();
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      await page.setViewportSize(viewport);
      const response = await page.goto(url);
      expect(response?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toContain('asks for your authority');
      expect(await page.locator('.brand').textContent()).toBe('Acme Pay');
      expect(await page.locator('li').allTextContents()).toEqual(
        expect.arrayContaining([expect.stringContaining('may pay up to 50.00 EUR per action')]),
      );
      // The decision pages' stylesheet with the application's colour: the top rule and the primary button.
      expect(
        await page
          .locator('main')
          .evaluate(
            (el) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el).borderTopColor,
          ),
      ).toBe('rgb(15, 118, 110)');
      expect(
        await page
          .locator('button.primary')
          .evaluate(
            (el) =>
              (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(el).backgroundColor,
          ),
      ).toBe('rgb(15, 118, 110)');
      expect(await page.locator('button.primary').evaluate((el) => el.getBoundingClientRect().height)).toBeGreaterThanOrEqual(44);
      expect(await violations(page)).toEqual([]);
    }
    await Promise.all([page.waitForURL(url), page.waitForLoadState('load'), page.locator('button.primary').click()]);
    await page.locator('[data-status="active"]').waitFor();
    expect(await violations(page)).toEqual([]);
    const authority = await http('GET', `${us}/api/v1/authorities/${authorityId}`, { headers: bearer(app.token) });
    expect(authority.body).toMatchObject({ status: 'active', principal_id: person.personId });
    await page.close();
  });
});
