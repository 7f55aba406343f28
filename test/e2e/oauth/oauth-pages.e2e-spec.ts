import { readFileSync } from 'node:fs';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http } from '@svc/testing';
import * as oidc from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../hosted-pages/support';
import { signUp, startOAuthRegion, type OAuthRegion } from './support';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const REDIRECT = 'http://127.0.0.1:5555/callback';

interface AxeViolation {
  id: string;
  help: string;
  nodes: Array<{ target: unknown }>;
}

jest.setTimeout(90_000);

/** The provider's hosted pages in headless Chromium: their CSP lets the flow finish, 0 axe violations, en and fr. */
describe('OpenID provider pages in Chromium', () => {
  let region: OAuthRegion;
  let browser: Browser;
  let config: oidc.Configuration;
  let personCookie: { name: string; value: string };
  let deviceConfig: oidc.Configuration;

  async function context(locale: string, bypassCSP: boolean): Promise<BrowserContext> {
    const ctx = await browser.newContext({ locale, bypassCSP });
    await ctx.addCookies([{ ...personCookie, url: region.url }]);
    await ctx.route('http://127.0.0.1:5555/**', (route) => route.fulfill({ status: 200, contentType: 'text/plain', body: 'callback' }));
    return ctx;
  }

  async function parUrl(): Promise<URL> {
    const verifier = oidc.randomPKCECodeVerifier();
    return oidc.buildAuthorizationUrlWithPAR(config, {
      redirect_uri: REDIRECT,
      scope: 'openid profile email',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: oidc.randomState(),
    });
  }

  async function violations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
    return result.violations.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  }

  beforeAll(async () => {
    region = await startOAuthRegion('oauth_pages');
    browser = await launchChromium();
    const created = await region.stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'rp', environment: 'development' }));
    const auth = { authorization: `Bearer ${created.apiToken}` };
    const client = await http('POST', `${region.url}/api/v1/applications/${created.application.id}/oauth_clients`, {
      headers: auth,
      json: { name: 'Demo RP', redirect_uris: [REDIRECT] },
    });
    config = await oidc.discovery(
      new URL(region.url),
      client.body.client_id as string,
      undefined,
      oidc.ClientSecretBasic(client.body.client_secret as string),
      { execute: [oidc.allowInsecureRequests] },
    );
    const device = await http('POST', `${region.url}/api/v1/applications/${created.application.id}/oauth_clients`, {
      headers: auth,
      json: { name: 'TV app', redirect_uris: [REDIRECT], grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] },
    });
    deviceConfig = await oidc.discovery(
      new URL(region.url),
      device.body.client_id as string,
      undefined,
      oidc.ClientSecretBasic(device.body.client_secret as string),
      { execute: [oidc.allowInsecureRequests] },
    );
    const person = await signUp(region, {
      email: 'grace@example.test',
      name: 'Grace Hopper',
      locale: 'en-US',
      timeZone: 'America/New_York',
      homeCountry: 'US',
    });
    const [name, value] = person.cookie.split('=') as [string, string];
    personCookie = { name, value };
  });

  afterAll(async () => {
    await browser?.close();
    await region?.close();
  });

  it('shows the consent page with 0 axe violations, and Allow returns to the client with a code and iss under the page CSP', async () => {
    const axeContext = await context('en-US', true);
    const page = await axeContext.newPage();
    await page.goto((await parUrl()).href);
    await page.getByRole('heading', { name: 'Allow access' }).waitFor();
    expect(await violations(page)).toEqual([]);
    await axeContext.close();

    const strict = await context('en-US', false);
    const strictPage = await strict.newPage();
    await strictPage.goto((await parUrl()).href);
    await strictPage.getByRole('button', { name: 'Allow' }).click();
    await strictPage.waitForURL((url) => url.href.startsWith(REDIRECT));
    const callback = new URL(strictPage.url());
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    expect(callback.searchParams.get('iss')).toBe(region.url);
    await strict.close();
  });

  it('speaks French to a French browser', async () => {
    const fr = await context('fr-FR', false);
    const page = await fr.newPage();
    await page.goto((await parUrl()).href);
    await page.getByRole('heading', { name: 'Autoriser l’accès' }).waitFor();
    expect(await page.getByRole('button', { name: 'Autoriser' }).count()).toBe(1);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    await fr.close();
  });

  it('shows the device user-code page with 0 axe violations, and the code entered by keyboard connects the device', async () => {
    const started = await oidc.initiateDeviceAuthorization(deviceConfig, { scope: 'openid' });
    const axeContext = await context('en-US', true);
    const page = await axeContext.newPage();
    await page.goto(`${region.url}/oauth/device`);
    expect(await violations(page)).toEqual([]);
    await page.getByLabel('Code').fill(started.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByText('Your device is connected').waitFor();
    expect(await violations(page)).toEqual([]);
    await axeContext.close();
  });
});
