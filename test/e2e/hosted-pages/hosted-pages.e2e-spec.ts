import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { startHostSite, type HostSite } from './host-pages';
import { launchChromium, publishedValidators, type Received } from './support';

const SCREENSHOTS = join(__dirname, '../../../test-output/screenshots');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const LOGO_URL = 'https://brand.acme.example/logo.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40"><rect width="40" height="40" rx="8" fill="#0f766e"/><path d="M10 30 L20 10 L30 30 Z" fill="#fff"/><text x="48" y="27" font-family="sans-serif" font-size="18" font-weight="700" fill="#0f766e">Acme</text></svg>';
const VIEWPORTS = [
  ['desktop', { width: 1280, height: 800 }],
  ['mobile', { width: 390, height: 844 }],
] as const;
const LANGUAGES = ['en', 'fr', 'de', 'es', 'pt', 'ja'] as const;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/**
 * Issue 5 in real headless Chromium: hosted pages, embed / element / popup / redirect, postMessage
 * v2 validated against the published schemas, the drop counter, deadline ticks, screenshots.
 */
describe('hosted decision pages in Chromium', () => {
  const clock = new FakeClock('2026-11-22T10:00:00.000Z');
  let stack: TestRegions;
  let gateway: string;
  let host: HostSite;
  let stranger: HostSite;
  let browser: Browser;
  let context: BrowserContext;
  let check: (message: Received['data']) => void;
  let app: { id: string; token: string; publishableKey: string };
  let standardFlow: string;
  let informedFlow: string;
  let draftFlow: string;
  let choiceFlow: string;
  let consentOnlyFlow: string;
  let checksFlow: string;
  let fixedOnlyFlow: string;
  let axeContext: BrowserContext;

  async function createFlow(body: Record<string, unknown>, activate = true): Promise<string> {
    const created = await http('POST', `${gateway}/api/v1/flows`, { headers: auth(app.token), json: body });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    if (activate) expect((await http('POST', `${gateway}/api/v1/flows/${id}/activate`, { headers: auth(app.token) })).status).toBe(200);
    return id;
  }

  async function mint(body: Record<string, unknown>): Promise<string> {
    const res = await http('POST', `${gateway}/api/v1/decisions`, { headers: auth(app.token), json: body });
    expect(res.status).toBe(201);
    return res.body.session_token as string;
  }

  async function messages(page: Page): Promise<Received[]> {
    return page.evaluate('window.__messages || []') as Promise<Received[]>;
  }

  async function dropped(): Promise<number> {
    const res = await fetch(`${gateway}/metrics`);
    const line = (await res.text())
      .split('\n')
      .find((l) => l.startsWith('trust_surface_postmessage_dropped_total{') && l.includes('reason="origin_missing"'));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  /** A flow with nothing to check, the person bound: one screen, one click. */
  async function acceptOnOneScreen(frame: { locator(selector: string): { click(): Promise<void> } }): Promise<void> {
    await frame.locator('#svc-action-accept_all').click();
  }

  /** Serves the application's logo at its https URL (no network in the tests). */
  async function serveLogo(target: BrowserContext): Promise<void> {
    await target.route(`${LOGO_URL}*`, (route) => route.fulfill({ status: 200, contentType: 'image/svg+xml', body: LOGO_SVG }));
  }

  /** axe-core's violations on a page (all rules axe runs by default, best practices included). */
  async function axeViolations(page: Page): Promise<AxeViolation[]> {
    await page.addScriptTag({ content: AXE_SOURCE });
    const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
    return result.violations;
  }

  function describeViolations(violations: AxeViolation[]): string[] {
    return violations.map((v) => `${v.id} (${v.impact ?? 'n/a'}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
  }

  beforeAll(async () => {
    stack = await startRegions('hosted_pages', { clock, regions: ['us'] });
    gateway = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Health', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken, publishableKey: created.publishableKey };
    host = await startHostSite(gateway);
    stranger = await startHostSite(gateway);
    expect(
      (
        await http('POST', `${gateway}/api/v1/applications/${app.id}/allowed_origins`, {
          headers: auth(app.token),
          json: { allowed_origin: { origin: host.origin } },
        })
      ).status,
    ).toBe(201);
    const branded = await http('PATCH', `${gateway}/api/v1/applications/${app.id}`, {
      headers: auth(app.token),
      json: { logo_url: LOGO_URL, brand_color: '#0F766E' },
    });
    expect([branded.status, branded.body.logo_url, branded.body.brand_color]).toEqual([200, LOGO_URL, '#0f766e']);
    const flow = {
      name: 'Newsletter',
      locale: 'en-GB',
      presentation: { title: 'Stay in touch', description: 'How we use your email address' },
      policy_url: 'https://example.com/privacy',
      purposes: [
        { key: 'newsletter', label: 'Newsletter', description: 'A monthly email', mechanism: 'consent', required: false },
        { key: 'service', label: 'Service emails', description: 'Receipts and notices', mechanism: 'contract', required: true },
      ],
      data_fields: [{ key: 'email', label: 'Email address', required: true }],
      purpose_of_use: 'Sending the newsletter',
      retention_period: 'P2Y',
      revocation_policy: 'any_time',
      consent_path: 'standard',
      requirements: [],
      consent_duration: 'P1Y',
    };
    standardFlow = await createFlow(flow);
    informedFlow = await createFlow({
      ...flow,
      name: 'Étude clinique',
      locale: 'fr-FR',
      consent_path: 'informed',
      presentation: { title: 'Participation à une étude', description: 'Les risques et bénéfices de l’étude' },
    });
    draftFlow = await createFlow({ ...flow, name: 'Draft' }, false);
    const consentPurposes = [
      { key: 'newsletter', label: 'Newsletter', description: 'A monthly email about new services', mechanism: 'consent', required: false },
      {
        key: 'offers',
        label: 'Partner offers',
        description: 'Offers from selected partners, by email',
        mechanism: 'consent',
        required: false,
      },
      {
        key: 'analytics',
        label: 'Usage analytics',
        description: 'How you use the app, to improve it',
        mechanism: 'consent',
        required: false,
      },
    ];
    choiceFlow = await createFlow({
      ...flow,
      name: 'Choices',
      presentation: {
        title: 'Your privacy choices',
        description: 'Choose what Acme Health may do with your data. You can change your mind at any time.',
      },
      purposes: [
        ...consentPurposes,
        {
          key: 'service',
          label: 'Running your account',
          description: 'Needed to provide the service you signed up for',
          mechanism: 'contract',
          required: true,
        },
      ],
    });
    consentOnlyFlow = await createFlow({ ...flow, name: 'Consent only', purposes: consentPurposes.slice(0, 2) });
    checksFlow = await createFlow({ ...flow, name: 'With checks', requirements: ['data_collection'] });
    fixedOnlyFlow = await createFlow({ ...flow, name: 'Contract only', purposes: [flow.purposes[1]] });
    check = await publishedValidators(gateway);
    browser = await launchChromium();
    context = await browser.newContext();
    await serveLogo(context);
    // axe is injected as a script: only this context bypasses the pages' CSP to let it in.
    axeContext = await browser.newContext({ bypassCSP: true });
    await serveLogo(axeContext);
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await axeContext?.close();
    await context?.close();
    await browser?.close();
    await host?.close();
    await stranger?.close();
    await stack?.close();
  });

  it('embeds a consent session in an iframe, completes it by clicking, and posts ready, state and complete that validate against the schemas', async () => {
    const token = await mint({ kind: 'consent', flow_id: standardFlow, delivery_mode: 'embed', principal_id: 'user-1' });
    const page = await context.newPage();
    const embedResponse = page.waitForResponse((r) => r.url().includes('/embed?'));
    await page.goto(`${host.origin}/raw?token=${token}`);
    const headers = (await embedResponse).headers();
    expect(headers['content-security-policy']).toContain(`frame-ancestors ${host.origin}`);
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(headers['x-frame-options']).toBeUndefined();
    expect(headers['set-cookie']).toBeUndefined();
    const frame = page.frameLocator('#frame');
    await acceptOnOneScreen(frame);
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:complete'), 10_000);
    const received = await messages(page);
    for (const m of received) {
      expect(m.origin).toBe(gateway);
      check(m.data);
      // ts is the server's (fake) clock, not the browser's wall clock (which is years away).
      expect(Math.abs(Date.parse(m.data.ts) - clock.now().getTime())).toBeLessThan(60_000);
    }
    const types = received.map((m) => m.data.type).filter((t) => t !== 'svc:resize');
    expect(types[0]).toBe('svc:ready');
    expect(received.some((m) => m.data.type === 'svc:resize')).toBe(true);
    const states = received
      .filter((m) => m.data.type === 'svc:state')
      .map((m) => [m.data.payload.from, m.data.payload.to, m.data.payload.step_index]);
    expect(states).toEqual([
      [null, 'pending', 0],
      ['pending', 'authenticating', 1],
      ['authenticating', 'verifying', 2],
      ['verifying', 'reviewing', 3],
      ['reviewing', 'fulfilled', 4],
    ]);
    const complete = received.find((m) => m.data.type === 'svc:complete')!.data;
    expect(complete.payload.outcome).toBe('granted');
    expect(new Set(received.map((m) => m.data.message_id)).size).toBe(received.length);
    // The complete event is a prompt to verify server-side: the exchange token proves it.
    const exchanged = await http('POST', `${gateway}/api/v1/decisions/${token}/exchange`, {
      headers: auth(app.token),
      json: { exchange_token: complete.payload.exchange_token },
    });
    expect(exchanged.body).toMatchObject({ status: 'fulfilled', outcome: 'granted' });
    expect(await context.cookies()).toEqual([]);
    await page.close();
  });

  it('runs the informed-consent path in <svc-decision> (French browser: disclosures, evidence step) and re-dispatches verified events on the element', async () => {
    const token = await mint({ kind: 'consent', flow_id: informedFlow, delivery_mode: 'embed', principal_id: 'user-2' });
    const french = await browser.newContext({ locale: 'fr-FR' });
    const page = await french.newPage();
    await page.goto(`${host.origin}/element?token=${token}`);
    const frame = page.frameLocator('svc-decision iframe');
    await expect(frame.locator('html').getAttribute('lang')).resolves.toBe('fr');
    await frame.locator('#svc-action-present_disclosures').click();
    await frame.locator('#svc-action-capture_evidence').click();
    await expect(frame.locator('#svc-status').textContent()).resolves.toContain("J'ai lu");
    await frame.locator('label[for="svc-evidence"]').click();
    await frame.locator('#svc-action-capture_evidence').click();
    await frame.locator('#svc-action-accept_all').click();
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:complete'), 10_000);
    const received = await messages(page);
    received.forEach((m) => check(m.data));
    expect(received[0]?.data.type).toBe('svc:ready');
    expect(received[0]?.data.payload).toMatchObject({
      kind: 'consent',
      locale: 'fr',
      session_token: token,
      branding: { name: 'Acme Health', logo_url: LOGO_URL },
    });
    expect(received.filter((m) => m.data.type === 'svc:state').map((m) => m.data.payload.to)).toEqual([
      'pending',
      'informed',
      'evidenced',
      'fulfilled',
    ]);
    expect(received.find((m) => m.data.type === 'svc:complete')?.data.payload.outcome).toBe('granted');
    const session = await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) });
    expect(session.body.status).toBe('fulfilled');
    await page.close();
    await french.close();
  });

  it('svc:cancel from the host declines the session; the frame answers svc:cancel and svc:complete declined', async () => {
    const token = await mint({ kind: 'consent', flow_id: standardFlow, delivery_mode: 'embed', principal_id: 'user-3' });
    const page = await context.newPage();
    await page.goto(`${host.origin}/raw?token=${token}`);
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:ready'), 10_000);
    await page.evaluate('window.__cancel()');
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:complete'), 10_000);
    const received = await messages(page);
    received.forEach((m) => check(m.data));
    expect(received.find((m) => m.data.type === 'svc:cancel')?.data.payload).toEqual({ reason: 'host_closed', cancelled_by: 'host' });
    expect(received.find((m) => m.data.type === 'svc:complete')?.data.payload.outcome).toBe('declined');
    expect((await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) })).body).toMatchObject({
      status: 'expired',
      outcome: 'declined',
    });
    await page.close();
  });

  it('popup mode: the SDK opens the page, which talks to its opener, and the outcome reaches the host', async () => {
    const token = await mint({ kind: 'consent', flow_id: standardFlow, delivery_mode: 'popup', principal_id: 'user-4' });
    const page = await context.newPage();
    await page.goto(`${host.origin}/popup?token=${token}`);
    await page.waitForFunction('window.__ready === true');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#go')]);
    await popup.waitForLoadState();
    await acceptOnOneScreen(popup);
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:complete'), 10_000);
    const received = await messages(page);
    received.forEach((m) => check(m.data));
    expect(received[0]?.data.payload).toMatchObject({ mode: 'popup' });
    expect(received.find((m) => m.data.type === 'svc:complete')?.data.payload.outcome).toBe('granted');
    await popup.close();
    await page.close();
  });

  it('redirect mode: success lands on redirect_uri with no query, a decline on ?error=access_denied', async () => {
    const granted = await mint({ kind: 'consent', flow_id: standardFlow, delivery_mode: 'redirect', principal_id: 'user-5' });
    const page = await context.newPage();
    await page.goto(`${host.origin}/redirect?token=${granted}`);
    await page.waitForFunction('window.__ready === true');
    await Promise.all([page.waitForURL(`${gateway}/decisions/**`), page.click('#go')]);
    await acceptOnOneScreen(page);
    await page.waitForURL(`${host.origin}/done`);
    expect(page.url()).toBe(`${host.origin}/done`);

    // Rejecting every purpose of a flow that fixes none is a decline.
    const declined = await mint({ kind: 'consent', flow_id: consentOnlyFlow, delivery_mode: 'redirect', principal_id: 'user-6' });
    await page.goto(`${host.origin}/redirect?token=${declined}`);
    await page.waitForFunction('window.__ready === true');
    await Promise.all([page.waitForURL(`${gateway}/decisions/**`), page.click('#go')]);
    await page.click('#svc-action-reject_all');
    await page.waitForURL(`${host.origin}/done?error=access_denied`);
    expect(page.url()).toBe(`${host.origin}/done?error=access_denied`);
    await page.close();
  });

  it('a host on an origin that is not allowed receives no message, and the drop counter rises (refused iframe and opener alike)', async () => {
    const before = await dropped();
    const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'user-7' });
    const page = await context.newPage();
    await page.goto(`${stranger.origin}/raw?token=${token}`);
    await waitFor(async () => (await dropped()) > before, 10_000);
    const afterFrame = await dropped();
    // A popup opened by a stranger renders (top level), but posts nothing: it drops and reports.
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      page.evaluate(
        `void window.open(${JSON.stringify(`${gateway}/decisions/${token}?origin=${encodeURIComponent(stranger.origin)}`)}, 'p')`,
      ),
    ]);
    await waitFor(async () => (await dropped()) > afterFrame, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await messages(page)).toEqual([]);
    await popup.close();
    await page.close();
  });

  it('deadline ticks arrive in order at T-15 (already passed when the page opened), T-5 and T-0', async () => {
    const token = await mint({ kind: 'consent', flow_id: standardFlow, delivery_mode: 'embed', principal_id: 'user-8', ttl_seconds: 30 });
    clock.advance(24_000);
    const page = await context.newPage();
    await page.goto(`${host.origin}/raw?token=${token}`);
    await waitFor(
      async () => (await messages(page)).some((m) => m.data.type === 'svc:deadline' && m.data.payload.level === 'expired'),
      15_000,
    );
    const ticks = (await messages(page)).filter((m) => m.data.type === 'svc:deadline');
    ticks.forEach((m) => check(m.data));
    expect(ticks.map((m) => [m.data.payload.remaining_seconds, m.data.payload.level])).toEqual([
      [15, 'warning'],
      [5, 'warning'],
      [0, 'expired'],
    ]);
    const ts = ticks.map((m) => Date.parse(m.data.ts));
    expect(ts[1]! - ts[0]!).toBeGreaterThanOrEqual(500);
    expect(ts[2]! - ts[1]!).toBeGreaterThanOrEqual(4_500);
    await page.close();
  }, 30_000);

  it('records exactly the purposes chosen: none pre-ticked, one ticked, the fixed one kept (page → session → event → consent record)', async () => {
    const token = await mint({ kind: 'consent', flow_id: choiceFlow, delivery_mode: 'embed', principal_id: 'chooser-1' });
    const page = await context.newPage();
    await page.goto(`${host.origin}/raw?token=${token}`);
    const frame = page.frameLocator('#frame');
    await frame.locator('#svc-action-save_choices').waitFor();
    // Every consent purpose is its own unticked control; the contract purpose is fixed, marked as such.
    const boxes = frame.locator('#svc-purposes input[type=checkbox]');
    await expect(boxes.count()).resolves.toBe(3);
    await expect(
      boxes.evaluateAll((els) =>
        els.map((e) => [(e as unknown as { value: string }).value, (e as unknown as { checked: boolean }).checked]),
      ),
    ).resolves.toEqual([
      ['newsletter', false],
      ['offers', false],
      ['analytics', false],
    ]);
    await expect(frame.locator('[data-purpose="service"][data-fixed="true"]').textContent()).resolves.toContain('Always active');
    // Accept all and Reject all are equally prominent: same size, same colours, same weight, one row.
    const looks = await frame.locator('#svc-actions button').evaluateAll((els) =>
      els.map((e) => {
        const r = e.getBoundingClientRect();
        const c = (
          globalThis as unknown as {
            getComputedStyle(el: unknown): Record<'backgroundColor' | 'color' | 'fontWeight' | 'fontSize' | 'borderColor', string>;
          }
        ).getComputedStyle(e);
        return {
          id: e.id,
          width: Math.round(r.width),
          height: Math.round(r.height),
          top: Math.round(r.top),
          bg: c.backgroundColor,
          color: c.color,
          weight: c.fontWeight,
          size: c.fontSize,
          border: c.borderColor,
        };
      }),
    );
    expect(looks.map((l) => l.id)).toEqual(['svc-action-accept_all', 'svc-action-reject_all', 'svc-action-save_choices']);
    const [accept, reject] = looks as [(typeof looks)[number], (typeof looks)[number]];
    expect({ ...reject, id: accept.id }).toEqual(accept);
    // One screen: no step counter, no Continue button.
    await expect(frame.locator('#svc-progress').textContent()).resolves.toBe('');
    await frame.locator('label[for="svc-purpose-1"]').click();
    await frame.locator('#svc-action-save_choices').click();
    await waitFor(async () => (await messages(page)).some((m) => m.data.type === 'svc:complete'), 10_000);
    await expect(frame.locator('#svc-status').textContent()).resolves.toBe(
      'Thank you. You agreed to: Partner offers and Running your account.',
    );
    const complete = (await messages(page)).find((m) => m.data.type === 'svc:complete')!.data;
    const exchanged = await http('POST', `${gateway}/api/v1/decisions/${token}/exchange`, {
      headers: auth(app.token),
      json: { exchange_token: complete.payload.exchange_token },
    });
    expect(exchanged.body).toMatchObject({ outcome: 'granted', purposes: ['offers', 'service'] });
    // consent-records writes the record from consent_session.granted: exactly the chosen purposes granted.
    const statusUrl = `${gateway}/api/v1/applications/${app.id}/consent_status?subject[external_id]=chooser-1`;
    const status = await waitFor(async () => {
      const res = await http<{ purposes: Array<{ purpose: string; status: string; flow_id: string }> }>('GET', statusUrl, {
        headers: auth(app.token),
      });
      return res.body.purposes?.length === 4 ? res.body : undefined;
    }, 15_000);
    expect(status.purposes.map((p) => [p.purpose, p.status, p.flow_id])).toEqual(
      expect.arrayContaining([
        ['newsletter', 'declined', choiceFlow],
        ['offers', 'granted', choiceFlow],
        ['analytics', 'declined', choiceFlow],
        ['service', 'granted', choiceFlow],
      ]),
    );
    await page.close();
  });

  it('Reject all keeps only the fixed purpose; the API refuses unknown, missing-fixed and empty choices by name', async () => {
    const token = await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'chooser-2' });
    const page = await context.newPage();
    await page.goto(`${gateway}/decisions/${token}`);
    await page.click('#svc-action-reject_all');
    await page.waitForSelector('text=Thank you');
    await expect(page.locator('#svc-purposes input:checked').count()).resolves.toBe(0);
    expect((await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) })).body).toMatchObject({
      outcome: 'granted',
      purposes: ['service'],
    });
    await page.close();

    const api = await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'chooser-3' });
    const move = (json: Record<string, unknown>) => http('POST', `${gateway}/api/v1/decisions/${api}/transitions`, { json });
    for (const action of ['sign_in', 'start_checks', 'review_terms']) expect((await move({ action })).status).toBe(200);
    for (const [purposes, reason] of [
      [['offers', 'coupons', 'service'], 'purpose_not_in_flow'],
      [['offers'], 'required_purpose_missing'],
    ] as const) {
      const res = await move({ action: 'complete', purposes });
      expect([res.status, res.body.reason_code, (res.body.detail as Record<string, unknown> | undefined)?.field ?? res.body.field]).toEqual(
        [422, reason, 'purposes'],
      );
    }
    const unique = await move({ action: 'complete', purposes: ['offers', 'offers', 'service'] });
    expect(unique.status).toBe(422);
    const fresh = await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'chooser-5' });
    const elsewhere = await http('POST', `${gateway}/api/v1/decisions/${fresh}/transitions`, {
      json: { action: 'sign_in', purposes: ['offers'] },
    });
    expect([elsewhere.status, elsewhere.body.reason_code]).toEqual([422, 'field_not_applicable']);
    const onlyConsent = await mint({ kind: 'consent', flow_id: consentOnlyFlow, principal_id: 'chooser-4' });
    for (const action of ['sign_in', 'start_checks', 'review_terms'])
      await http('POST', `${gateway}/api/v1/decisions/${onlyConsent}/transitions`, { json: { action } });
    const empty = await http('POST', `${gateway}/api/v1/decisions/${onlyConsent}/transitions`, {
      json: { action: 'complete', purposes: [] },
    });
    expect([empty.status, empty.body.reason_code]).toEqual([422, 'no_purpose_granted']);
  });

  it('a flow whose only purposes are fixed offers agree and decline, equally prominent', async () => {
    const token = await mint({ kind: 'consent', flow_id: fixedOnlyFlow, principal_id: 'fixed-1' });
    const page = await context.newPage();
    await page.goto(`${gateway}/decisions/${token}`);
    await page.waitForSelector('#svc-action-complete');
    await expect(page.locator('#svc-actions button').evaluateAll((els) => els.map((e) => [e.id, e.className]))).resolves.toEqual([
      ['svc-action-complete', 'choice'],
      ['svc-action-decline', 'choice'],
    ]);
    await expect(page.locator('#svc-purposes input[type=checkbox]').count()).resolves.toBe(0);
    await page.click('#svc-action-complete');
    await page.waitForSelector('text=Thank you');
    expect((await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) })).body).toMatchObject({
      outcome: 'granted',
      purposes: ['service'],
    });
    await page.close();
  });

  it('a flow with checks keeps its steps; the choice comes at the last one', async () => {
    const token = await mint({ kind: 'consent', flow_id: checksFlow, principal_id: 'stepper-1' });
    const page = await context.newPage();
    await page.goto(`${gateway}/decisions/${token}`);
    await expect(page.locator('#svc-progress').textContent()).resolves.toBe('Step 1 of 4');
    for (const action of ['sign_in', 'start_checks', 'review_terms']) await page.click(`#svc-action-${action}`);
    await page.locator('label[for="svc-purpose-0"]').click();
    await page.click('#svc-action-save_choices');
    await page.waitForSelector('text=Thank you');
    expect((await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) })).body).toMatchObject({
      outcome: 'granted',
      purposes: ['newsletter', 'service'],
    });
    await page.close();
  });

  it.each(LANGUAGES)(
    'negotiates %s from Accept-Language (lang and dir set) and writes the deadline in the browser time zone',
    async (language) => {
      const tag = { en: 'en-US', fr: 'fr-CA', de: 'de-DE', es: 'es-ES', pt: 'pt-BR', ja: 'ja-JP' }[language];
      const minted = await http('POST', `${gateway}/api/v1/decisions`, {
        headers: auth(app.token),
        json: { kind: 'consent', flow_id: choiceFlow, principal_id: `lang-${language}` },
      });
      const localized = await browser.newContext({ locale: tag, timezoneId: 'Asia/Tokyo', bypassCSP: true });
      await serveLogo(localized);
      const page = await localized.newPage();
      const response = await page.goto(`${gateway}/decisions/${minted.body.session_token as string}`);
      expect(response?.headers()['content-language']).toBe(language);
      await page.waitForSelector('#svc-action-accept_all');
      await expect(page.locator('html').getAttribute('lang')).resolves.toBe(language);
      await expect(page.locator('html').getAttribute('dir')).resolves.toBe('ltr');
      // The flow's own wording keeps the flow's language.
      await expect(page.locator('h1').getAttribute('lang')).resolves.toBe('en-GB');
      const deadline = new Date(minted.body.deadline as string);
      const tokyo = new Intl.DateTimeFormat('en-GB', {
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
        timeZone: 'Asia/Tokyo',
      }).format(deadline);
      const written = (await page.locator('[data-detail="deadline"]').textContent()) ?? '';
      // Not the server's UTC rendering and not an ISO stamp: Tokyo's wall-clock time (an offset such as "UTC+9" may name the zone).
      expect(written).not.toMatch(/UTC(?![+−-]\d)/);
      expect(written).not.toMatch(/\d{4}-\d\d-\d\dT/);
      const hour = Number(tokyo.slice(0, 2));
      const minutes = tokyo.slice(3);
      expect([written, new RegExp(`(^|\\D)0?(${hour}|${hour % 12 || 12})\\D{1,4}${minutes}(\\D|$)`).test(written)]).toEqual([
        written,
        true,
      ]);
      for (const [label, viewport] of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.screenshot({ path: join(SCREENSHOTS, `consent-${language}-${label}.png`), fullPage: true });
      }
      expect(describeViolations(await axeViolations(page))).toEqual([]);
      await page.close();
      await localized.close();
    },
  );

  it('screenshots every hosted page at desktop (1280×800) and mobile (390×844) width, with 0 axe-core violations on each', async () => {
    const escalated = {
      object: 'approval_proposal',
      escalation_id: 'esc_us_aaaaaaaaaaaaaaaaaaaa',
      agent: { id: 'agent_us_aaaaaaaaaaaaaaaaaaaa', name: 'Treasury assistant', provider: 'Acme AI', model: 'acme-2' },
      actions: ['payments:transfer'],
      scope: ['payments:write'],
      value: { amount: '2500.00', currency: 'EUR' },
      context: { purpose: 'supplier invoice 4711', jurisdiction: 'FR', counterparty: 'https://bank.example', on_behalf_of: 'cfo-ada' },
      triggers: [{ bound: 'amount_over', limit: '1000', amount: '2500.00', currency: 'EUR' }],
      grant_valid_until: '2026-11-23T10:00:00.000Z',
      deadline: '2026-11-22T11:00:00.000Z',
    };
    const done = await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'shot-done' });
    const pages: Array<[string, string, string]> = [
      ['consent', `/decisions/${await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'shot-1' })}`, '#svc-action-accept_all'],
      [
        'consent-steps',
        `/decisions/${await mint({ kind: 'consent', flow_id: checksFlow, principal_id: 'shot-2' })}`,
        '#svc-action-sign_in',
      ],
      [
        'consent-informed',
        `/decisions/${await mint({ kind: 'consent', flow_id: informedFlow, principal_id: 'shot-3' })}`,
        '#svc-action-present_disclosures',
      ],
      [
        'consent-embed',
        `/decisions/${await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'shot-4', delivery_mode: 'embed' })}/embed`,
        '#svc-action-accept_all',
      ],
      ['consent-done', `/decisions/${done}`, '#svc-status'],
      [
        'approval',
        `/decisions/${await mint({ kind: 'approval', principal_id: 'ops-1', trigger_type: 'value', reference: 'esc_123', proposal: { action: 'payments:transfer', bounds: { amount: '2500.00 EUR', payee: 'ACME Ltd', valid_until: '2026-11-23T10:00:00Z' } } })}`,
        '#svc-action-approve',
      ],
      [
        'approval-escalated',
        `/decisions/${await mint({ kind: 'approval', principal_id: 'ops-2', trigger_type: 'escalation', proposal: escalated })}`,
        '#svc-action-approve',
      ],
      [
        'signing',
        `/decisions/${await mint({ kind: 'signature_request', principal_id: 'signer-1', proposal: { title: 'Master services agreement', version: '3.1', digest: 'sha256:9f2c…' } })}`,
        '#svc-action-sign',
      ],
      ['error-not-found', `/decisions/dts_${'A'.repeat(43)}`, 'h1'],
      [
        'error-redirect',
        `/decisions/${await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'shot-5' })}?redirect_uri=${encodeURIComponent('https://evil.example/back')}`,
        'h1',
      ],
    ];
    const finished = await context.newPage();
    await finished.goto(`${gateway}${pages[4]![1]}`);
    await finished.click('#svc-action-accept_all');
    await finished.waitForSelector('text=Thank you');
    await finished.close();
    const checked: string[] = [];
    for (const [name, path, ready] of pages) {
      for (const [label, viewport] of VIEWPORTS) {
        const page = await context.newPage();
        await page.setViewportSize(viewport);
        const response = await page.goto(`${gateway}${path}`);
        await page.waitForSelector(ready);
        if (name.startsWith('consent')) {
          // The logo loads under the CSP: its https origin is the one image source added.
          expect(response?.headers()['content-security-policy']).toContain("img-src 'self' data: https://brand.acme.example;");
          await page.waitForFunction('document.querySelector(".brand img") && document.querySelector(".brand img").naturalWidth > 0');
        }
        await page.screenshot({ path: join(SCREENSHOTS, `${name}-${label}.png`), fullPage: true });
        await page.close();
      }
      const audited = await axeContext.newPage();
      await audited.goto(`${gateway}${path}`);
      await audited.waitForSelector(ready);
      expect([name, describeViolations(await axeViolations(audited))]).toEqual([name, []]);
      checked.push(name);
      await audited.close();
    }
    expect(checked).toHaveLength(pages.length);
    const approval = await context.newPage();
    await approval.goto(`${gateway}${pages[5]![1]}`);
    await expect(approval.locator('#svc-action-approve').isVisible()).resolves.toBe(true);
    await expect(approval.locator('main').textContent()).resolves.toContain('payments:transfer');
    await approval.locator('#svc-action-counter').click();
    await approval.locator('#svc-counter-text').fill('Cap at 2000 EUR');
    await approval.locator('#svc-counter-submit').click();
    await approval.waitForSelector('text=countered');
    await approval.close();
  }, 120_000);

  it('keyboard only: Tab reaches each purpose and the choices, Space ticks, Enter confirms; the status region is aria-live', async () => {
    const token = await mint({ kind: 'consent', flow_id: choiceFlow, principal_id: 'user-11' });
    const page = await context.newPage();
    await page.goto(`${gateway}/decisions/${token}`);
    await page.waitForSelector('#svc-action-save_choices');
    await expect(page.locator('#svc-status').getAttribute('aria-live')).resolves.toBe('polite');
    const reached: string[] = [];
    for (let i = 0; i < 10 && !reached.includes('svc-action-save_choices'); i += 1) {
      await page.keyboard.press('Tab');
      const id = (await page.evaluate('document.activeElement && document.activeElement.id')) as string;
      reached.push(id);
      if (id === 'svc-purpose-2') await page.keyboard.press('Space');
    }
    expect(reached.filter((id) => id.startsWith('svc-'))).toEqual([
      'svc-purpose-0',
      'svc-purpose-1',
      'svc-purpose-2',
      'svc-action-accept_all',
      'svc-action-reject_all',
      'svc-action-save_choices',
    ]);
    await page.keyboard.press('Enter');
    await page.waitForSelector('text=Thank you');
    expect((await http('GET', `${gateway}/api/v1/decisions/${token}`, { headers: auth(app.token) })).body).toMatchObject({
      outcome: 'granted',
      purposes: ['analytics', 'service'],
    });
    await page.close();
  });

  it('SDK createSession: an allowed origin mints; a failure surfaces as SvcError with statusCode and body', async () => {
    const page = await context.newPage();
    await page.goto(`${host.origin}/sdk-errors`);
    await page.waitForFunction('window.__ready === true');
    const ok = (await page.evaluate(`window.__tryCreate(${JSON.stringify(app.publishableKey)}, ${JSON.stringify(standardFlow)})`)) as {
      ok: boolean;
      token: string;
    };
    expect(ok.ok).toBe(true);
    expect(ok.token).toMatch(/^dts_/);
    const failed = (await page.evaluate(
      `window.__tryCreate(${JSON.stringify(app.publishableKey)}, 'flw_us_doesnotexistaaaaaaaa')`,
    )) as Record<string, unknown>;
    expect(failed).toMatchObject({
      ok: false,
      isSvcError: true,
      name: 'SvcError',
      statusCode: 404,
      body: { reason_code: 'flow_not_found' },
    });
    await page.close();
  });

  it('/accord/:flow_id opens a session on an active flow (303 to the decision page) and answers 404 for a draft', async () => {
    await waitFor(async () => (await http('GET', `${gateway}/accord/${standardFlow}`)).status === 303, 10_000);
    const res = await http('GET', `${gateway}/accord/${standardFlow}?redirect_uri=${encodeURIComponent(`${host.origin}/done`)}`);
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/decisions\/dts_[A-Za-z0-9_-]{43}\?redirect_uri=/);
    expect(new URL(location, gateway).searchParams.get('redirect_uri')).toBe(`${host.origin}/done`);
    expect((await http('GET', `${gateway}/accord/${draftFlow}`)).status).toBe(404);
    expect((await http('GET', `${gateway}/accord/flw_us_unknown0000000000`)).status).toBe(404);
    expect(
      (await http('GET', `${gateway}/accord/${standardFlow}?redirect_uri=${encodeURIComponent('https://evil.example/x')}`)).status,
    ).toBe(400);
  });
  describe('HTTP edges of the hosted surface (no browser)', () => {
    const WELL_FORMED_UNKNOWN = `dts_${'A'.repeat(43)}`;

    it('answers a 404 HTML page for an unknown or malformed session token, never 5xx', async () => {
      for (const path of [
        `/decisions/${WELL_FORMED_UNKNOWN}`,
        '/decisions/not-a-token',
        `/decisions/${WELL_FORMED_UNKNOWN}/embed`,
        `/decisions/${'x'.repeat(300)}/embed`,
      ]) {
        const res = await http('GET', `${gateway}${path}`);
        expect([path, res.status]).toEqual([path, 404]);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      }
    });

    it('sends a per-response nonce CSP, no cookie, no-store and no-referrer; the full page refuses framing', async () => {
      const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-1' });
      const [a, b] = [await http('GET', `${gateway}/decisions/${token}`), await http('GET', `${gateway}/decisions/${token}`)];
      const csp = a.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]{24}'/);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-(inline|eval)/);
      expect(b.headers.get('content-security-policy')).not.toBe(csp);
      expect(a.headers.get('set-cookie')).toBeNull();
      expect(a.headers.get('cache-control')).toBe('no-store');
      expect(a.headers.get('referrer-policy')).toBe('no-referrer');
      expect(a.headers.get('x-frame-options')).toBeNull();
    });

    it('writes only an allowed origin into the embed: a stranger origin gets parent_origin null and frame-ancestors stays the allowed list', async () => {
      const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-2' });
      const before = await dropped();
      const res = await http('GET', `${gateway}/decisions/${token}/embed?origin=${encodeURIComponent(stranger.origin)}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain(`frame-ancestors ${host.origin};`.replace(';', ''));
      expect(res.headers.get('content-security-policy')).not.toContain(stranger.origin);
      expect(res.text).toContain('"parent_origin":null');
      expect(await dropped()).toBe(before + 1);
      const allowed = await http('GET', `${gateway}/decisions/${token}/embed?origin=${encodeURIComponent(host.origin)}`);
      expect(allowed.text).toContain(`"parent_origin":${JSON.stringify(host.origin)}`);
      const withPath = await http('GET', `${gateway}/decisions/${token}/embed?origin=${encodeURIComponent(`${host.origin}/evil`)}`);
      expect(withPath.text).toContain('"parent_origin":null');
    });

    it('escapes untrusted text: a proposal cannot inject markup or close the config block', async () => {
      const token = await mint({
        kind: 'approval',
        principal_id: 'edge-3',
        proposal: { action: '</script><script>alert(1)</script>', bounds: { '<b>k</b>': '<img src=x onerror=alert(1)>' } },
      });
      const res = await http('GET', `${gateway}/decisions/${token}`);
      expect(res.status).toBe(200);
      expect(res.text).not.toContain('<script>alert(1)');
      expect(res.text).not.toContain('<img src=x');
    });

    it.each([
      ['another origin', 'https://evil.example/back'],
      ['a query on the redirect_uri', `/done?x=1`],
      ['a fragment', `/done#x`],
      ['a relative URL', 'done'],
      ['a javascript: URL', 'javascript:alert(1)'],
    ])('answers 400 redirect_uri_not_allowed for %s', async (_case, value) => {
      const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-4' });
      const target = value.startsWith('/') ? `${host.origin}${value}` : value;
      const res = await http('GET', `${gateway}/decisions/${token}?redirect_uri=${encodeURIComponent(target)}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('redirect_uri_not_allowed');
    });

    it('answers 400 for a repeated redirect_uri parameter', async () => {
      const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-5' });
      const done = encodeURIComponent(`${host.origin}/done`);
      expect((await http('GET', `${gateway}/decisions/${token}?redirect_uri=${done}&redirect_uri=${done}`)).status).toBe(400);
    });

    it('branding: PATCH validates logo_url (https only) and brand_color (hex) by name, any hex colour is accepted (text adapts), null clears', async () => {
      const other = await stack.process.us.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: 'Branding', environment: 'development' }));
      const patch = (json: Record<string, unknown>) =>
        http('PATCH', `${gateway}/api/v1/applications/${other.application.id}`, { headers: auth(other.apiToken), json });
      for (const [json, field] of [
        [{ logo_url: 'http://brand.example/logo.png' }, 'logo_url'],
        [{ logo_url: 'https://user:pw@brand.example/logo.png' }, 'logo_url'],
        [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
        [{ logo_url: `https://brand.example/${'a'.repeat(2100)}` }, 'logo_url'],
        [{ brand_color: 'teal' }, 'brand_color'],
        [{ brand_color: '#12345' }, 'brand_color'],
      ] as const) {
        const res = await patch(json);
        expect([json, res.status, res.body.reason_code, (res.body.detail as Record<string, unknown>).field]).toEqual([
          json,
          422,
          'validation_failed',
          field,
        ]);
      }
      expect((await patch({ brand_color: 7 })).status).toBe(400);
      const yellow = await patch({ brand_color: '#FD0', logo_url: 'https://cdn.brand.example/l.png' });
      expect([yellow.status, yellow.body.brand_color, yellow.body.logo_url]).toEqual([200, '#ffdd00', 'https://cdn.brand.example/l.png']);
      const token = await http('POST', `${gateway}/api/v1/decisions`, {
        headers: auth(other.apiToken),
        json: { kind: 'approval', principal_id: 'p-1', proposal: { action: 'x' } },
      });
      const page = await http('GET', `${gateway}/decisions/${token.body.session_token as string}`);
      expect(page.text).toContain('--brand:#ffdd00;--on-brand:#000000');
      expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.brand.example;");
      const cleared = await patch({ brand_color: null, logo_url: null });
      expect([cleared.body.brand_color, cleared.body.logo_url, cleared.body.name]).toEqual([null, null, 'Branding']);
      const plain = await http('GET', `${gateway}/decisions/${token.body.session_token as string}`);
      expect(plain.headers.get('content-security-policy')).toContain("img-src 'self' data:;");
    });

    it('localizes the error pages from Accept-Language', async () => {
      const res = await http('GET', `${gateway}/decisions/dts_${'A'.repeat(43)}`, {
        headers: { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' },
      });
      expect([res.status, res.headers.get('content-language')]).toEqual([404, 'de']);
      expect(res.text).toContain('<html lang="de" dir="ltr">');
      expect(res.text).toContain('Nicht gefunden');
    });

    describe('POST /decisions/:session_token/postmessage_drops', () => {
      it('counts the reported drops under reason origin_missing (204)', async () => {
        const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-6' });
        const before = await dropped();
        const res = await http('POST', `${gateway}/decisions/${token}/postmessage_drops`, { json: { reason: 'origin_missing', count: 3 } });
        expect(res.status).toBe(204);
        expect(await dropped()).toBe(before + 3);
      });

      it.each([
        ['an unknown field', { reason: 'origin_missing', count: 1, extra: true }, 400, 'invalid_request'],
        ['a string count', { reason: 'origin_missing', count: '1' }, 400, 'invalid_request'],
        ['a missing reason', { count: 1 }, 400, 'invalid_request'],
        ['an unknown reason', { reason: 'bored', count: 1 }, 422, 'validation_failed'],
        ['a zero count', { reason: 'origin_missing', count: 0 }, 422, 'validation_failed'],
        ['a count over 100', { reason: 'origin_missing', count: 101 }, 422, 'validation_failed'],
      ])('answers %s with the exact 4xx', async (_case, json, status, reason) => {
        const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-7' });
        const res = await http('POST', `${gateway}/decisions/${token}/postmessage_drops`, { json });
        expect([res.status, res.body.reason_code]).toEqual([status, reason]);
      });

      it('answers 400 for malformed JSON and an oversized body, 404 for an unknown session', async () => {
        const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-8' });
        const malformed = await http('POST', `${gateway}/decisions/${token}/postmessage_drops`, {
          headers: { 'content-type': 'application/json' },
          raw: '{"reason"',
        });
        expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
        const huge = await http('POST', `${gateway}/decisions/${token}/postmessage_drops`, {
          json: { reason: 'x'.repeat(1_100_000), count: 1 },
        });
        expect([huge.status, huge.body.reason_code]).toEqual([413, 'payload_too_large']);
        const unknown = await http('POST', `${gateway}/decisions/${WELL_FORMED_UNKNOWN}/postmessage_drops`, {
          json: { reason: 'origin_missing', count: 1 },
        });
        expect([unknown.status, unknown.body.reason_code]).toEqual([404, 'session_not_found']);
      });
    });

    describe('CORS and the cors.preflight_denied activity event', () => {
      const preflight = (path: string, origin: string) =>
        http('OPTIONS', `${gateway}${path}`, {
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-publishable-key' },
        });

      it('allows a registered origin (204, its own origin echoed, never *) and refuses others with 403 cors_origin_not_allowed', async () => {
        const ok = await preflight(`/api/v1/decisions?publishable_key=${app.publishableKey}`, host.origin);
        expect(ok.status).toBe(204);
        expect(ok.headers.get('access-control-allow-origin')).toBe(host.origin);
        expect(ok.headers.get('access-control-allow-headers')).toContain('x-publishable-key');
        expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
        const denied = await preflight(`/api/v1/decisions?publishable_key=${app.publishableKey}`, stranger.origin);
        expect([denied.status, denied.body.reason_code]).toEqual([403, 'cors_origin_not_allowed']);
        expect(denied.headers.get('access-control-allow-origin')).toBeNull();
        const anonymous = await preflight('/api/v1/decisions', host.origin);
        expect([anonymous.status, anonymous.body.reason_code]).toEqual([403, 'cors_origin_not_allowed']);
      });

      it('names the application by the session token in the path, and adds the header to actual calls from an allowed origin only', async () => {
        const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-9' });
        expect((await preflight(`/api/v1/decisions/${token}/transitions`, host.origin)).status).toBe(204);
        const allowed = await http('GET', `${gateway}/api/v1/decisions/${token}/state`, { headers: { origin: host.origin } });
        expect(allowed.headers.get('access-control-allow-origin')).toBe(host.origin);
        const other = await http('GET', `${gateway}/api/v1/decisions/${token}/state`, { headers: { origin: stranger.origin } });
        expect(other.headers.get('access-control-allow-origin')).toBeNull();
      });

      it('records cors.preflight_denied on the application and lists it at GET /api/v1/applications/:id/activity, paginated', async () => {
        await preflight(`/api/v1/decisions?publishable_key=${app.publishableKey}`, stranger.origin);
        const token = await mint({ kind: 'consent', flow_id: standardFlow, principal_id: 'edge-10' });
        await preflight(`/api/v1/decisions/${token}/state`, stranger.origin);
        const res = await http<{ data: Array<Record<string, unknown>>; has_more: boolean; next_cursor: string | null }>(
          'GET',
          `${gateway}/api/v1/applications/${app.id}/activity?limit=1`,
          { headers: auth(app.token) },
        );
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(1);
        expect(res.body.data[0]).toMatchObject({
          object: 'activity_event',
          type: 'cors.preflight_denied',
          origin: stranger.origin,
          method: 'OPTIONS',
          path: '/api/v1/decisions/:session_token/state',
        });
        expect(JSON.stringify(res.body)).not.toContain(token);
        expect(res.body.has_more).toBe(true);
        const next = await http<{ data: Array<Record<string, unknown>> }>(
          'GET',
          `${gateway}/api/v1/applications/${app.id}/activity?limit=1&cursor=${res.body.next_cursor}`,
          { headers: auth(app.token) },
        );
        expect(next.body.data[0]).toMatchObject({ type: 'cors.preflight_denied', path: '/api/v1/decisions' });
      });

      it('answers the activity list with the exact 4xx for wrong auth, another application, and bad queries', async () => {
        const other = await stack.process.us.app
          .get(CreateApplication)
          .execute(CreateApplicationCommand.create({ name: 'Other', environment: 'development' }));
        const url = `${gateway}/api/v1/applications/${app.id}/activity`;
        const none = await http('GET', url);
        expect([none.status, none.body.reason_code]).toEqual([401, 'unauthenticated']);
        const pk = await http('GET', url, { headers: { 'x-publishable-key': app.publishableKey } });
        expect(pk.status).toBe(403);
        const foreign = await http('GET', url, { headers: auth(other.apiToken) });
        expect([foreign.status, foreign.body.reason_code]).toEqual([404, 'application_not_found']);
        const unknownId = await http('GET', `${gateway}/api/v1/applications/${other.application.id}x/activity`, {
          headers: auth(other.apiToken),
        });
        expect(unknownId.status).toBe(404);
        const badLimit = await http('GET', `${url}?limit=0`, { headers: auth(app.token) });
        expect([badLimit.status, badLimit.body.reason_code]).toEqual([422, 'validation_failed']);
        const unknownField = await http('GET', `${url}?colour=red`, { headers: auth(app.token) });
        expect([unknownField.status, unknownField.body.reason_code]).toEqual([400, 'invalid_request']);
        const badCursor = await http('GET', `${url}?cursor=nope`, { headers: auth(app.token) });
        expect([badCursor.status, badCursor.body.reason_code]).toEqual([400, 'invalid_cursor']);
      });
    });

    it('serves the schemas at stable URLs (404 schema_not_found otherwise) and the SDK as a cross-origin ES module', async () => {
      const envelope = await http('GET', `${gateway}/schemas/postmessage/v2/envelope.json`);
      expect(envelope.headers.get('content-type')).toMatch(/^application\/schema\+json/);
      expect(envelope.body).toMatchObject({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: '/schemas/postmessage/v2/envelope.json',
      });
      for (const file of ['nope.json', 'envelope', '__proto__.json', 'constructor.json']) {
        const res = await http('GET', `${gateway}/schemas/postmessage/v2/${file}`);
        expect([file, res.status, res.body.reason_code]).toEqual([file, 404, 'schema_not_found']);
      }
      const sdk = await http('GET', `${gateway}/cdn/v1/svc.js`);
      expect(sdk.status).toBe(200);
      expect(sdk.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(sdk.headers.get('access-control-allow-origin')).toBe('*');
      expect(sdk.text).toContain("customElements.define('svc-decision'");
    });
  });
});
