import { createServer, type Server } from 'node:http';
import { FakeClock } from '@svc/config';
import { freePort, http, waitFor } from '@svc/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { RecordsHarness, auth, type Json, type TestApp } from './harness';

/**
 * Spec: What the service does 3 (a service-rendered consent field in the organisation's own
 * form), Capture token (`overturo_capture_token`), Other rules (service unreachable: the form
 * still submits and an error callback fires), receipt extensions collection_channel
 * (`embedded_field_browser`) and rendering_evidence. Issue 6 item 3: real headless Chromium, the
 * organisation's page on an allowed localhost origin served by this test.
 */
describe('service-rendered consent field in a real browser', () => {
  const clock = new FakeClock('2026-08-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let browser: Browser;
  let host: Server;
  let hostUrl: string;
  let app: TestApp;
  let flowId: string;
  let closedPort: number;
  const submissions: Array<Record<string, string>> = [];

  /** The organisation's own signup form, with the service's field placed among its own inputs. */
  function page(fieldSrc: string, apiBase: string): string {
    return `<!doctype html><html><body>
      <form method="post" action="/submit" data-overturo-onerror="captureFailed">
        <input name="email" value="ada@example.com">
        <svc-consent-field flow="${flowId}" publishable-key="${app.pk}" api-base="${apiBase}"></svc-consent-field>
        <button id="signup" type="submit">Sign up</button>
      </form>
      <script>
        window.captureFailed = function (error) { window.reportCaptureError({ via: 'callback', statusCode: error.statusCode, message: error.message, name: error.name }); };
        document.addEventListener('capture-error', function (event) { window.reportCaptureError({ via: 'event', statusCode: event.detail.statusCode }); });
      </script>
      <script src="${fieldSrc}"></script>
    </body></html>`;
  }

  async function openSignup(path: string): Promise<{ tab: Page; errors: Json[] }> {
    const tab = await browser.newPage();
    const errors: Json[] = [];
    await tab.exposeFunction('reportCaptureError', (e: Json) => errors.push(e));
    await tab.goto(`${hostUrl}${path}`);
    return { tab, errors };
  }

  async function submit(tab: Page): Promise<Record<string, string>> {
    await Promise.all([tab.waitForURL(`${hostUrl}/submit`), tab.click('#signup')]);
    await tab.waitForSelector('#thanks');
    await tab.close();
    return submissions.pop()!;
  }

  beforeAll(async () => {
    await harness.start('consent-field-browser');
    const port = await freePort();
    closedPort = await freePort();
    hostUrl = `http://localhost:${port}`;
    app = await harness.newApp('shop', hostUrl);
    flowId = await harness.flow(app.token);
    const fieldScript = (await http('GET', `${harness.url}/capture/v1/field.js`)).text;
    host = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/signup')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`${harness.url}/capture/v1/field.js`, harness.url));
      // Same script, copied onto the organisation's server, talking to a service that is down.
      if (req.method === 'GET' && req.url === '/signup-offline')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('/field.js', `http://127.0.0.1:${closedPort}`));
      if (req.method === 'GET' && req.url === '/field.js')
        return void res.writeHead(200, { 'content-type': 'application/javascript' }).end(fieldScript);
      if (req.method === 'POST' && req.url === '/submit') {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          submissions.push(Object.fromEntries(new URLSearchParams(body)));
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p id="thanks">Thanks</p>');
        });
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => host.listen(port, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => host?.close(resolve));
    await harness.close();
  });

  it("renders the flow's purposes unticked in the organisation's form; the ticked one is granted, the other declined, channel embedded_field_browser", async () => {
    const { tab, errors } = await openSignup('/signup');
    await tab.waitForSelector('svc-consent-field[data-state="ready"]');
    const shown = await tab.$$eval('svc-consent-field input[data-svc-purpose]', (inputs) =>
      inputs.map((i) => {
        const input = i as typeof i & { checked: boolean; required: boolean };
        return [input.getAttribute('data-svc-purpose'), input.checked, input.required, input.closest('label')?.textContent];
      }),
    );
    expect(shown).toEqual([
      ['newsletter', false, false, 'Newsletter'],
      ['offers', false, false, 'Partner offers'],
    ]);
    expect(await tab.textContent('svc-consent-field legend')).toBe('Stay in touch');
    await tab.getByLabel('Newsletter').check();
    const form = await submit(tab);
    expect(errors).toEqual([]);
    expect(form).toMatchObject({ email: 'ada@example.com' });
    expect(form.overturo_capture_token).toMatch(/^cap_us_[A-Za-z0-9_-]{43}$/);

    // The organisation's server commits the capture with the person's identity.
    const committed = await http('POST', `${harness.url}/api/v1/decisions/${form.overturo_capture_token}/authorize`, {
      headers: auth(app.token),
      json: { subject: { email: form.email, external_id: 'ada-1' } },
    });
    expect(committed.body).toEqual({
      status: 'committed',
      record_id: expect.stringMatching(/^crec_us_/),
      channel: 'embedded_field_browser',
    });
    const recordId = committed.body.record_id as string;
    const status = await http('GET', `${harness.url}/api/v1/applications/${app.id}/consent_status?subject[email]=ada%40example.com`, {
      headers: auth(app.token),
    });
    expect((status.body.purposes as Json[]).map((p) => [p.purpose, p.status, p.record_id])).toEqual([
      ['newsletter', 'granted', recordId],
      ['offers', 'declined', recordId],
    ]);
    const record = await http('GET', `${harness.url}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      collection_channel: 'embedded_field_browser',
      subject: { email: 'ada@example.com', external_id: 'ada-1' },
    });

    // The record's event carries the digest of exactly the wording the service rendered.
    const rendered = await http('GET', `${harness.url}/capture/v1/fields/${flowId}`, {
      headers: { 'x-publishable-key': app.pk, origin: hostUrl },
    });
    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === recordId)[0]);
    expect(event).toMatchObject({ collectionChannel: 'embedded_field_browser', renderingEvidenceDigest: rendered.body.rendering_digest });
  });

  it('still submits the form and fires the error callback when the service is unreachable', async () => {
    const { tab, errors } = await openSignup('/signup-offline');
    await tab.waitForSelector('svc-consent-field[data-state="failed"]', { state: 'attached' });
    const form = await submit(tab);
    expect(form).toMatchObject({ email: 'ada@example.com', overturo_capture_token: '' });
    expect(errors).toEqual([
      { via: 'event', statusCode: 0 },
      {
        via: 'callback',
        statusCode: 0,
        name: 'OverturoCaptureError',
        message: expect.stringContaining('consent field service unreachable'),
      },
      { via: 'event', statusCode: 0 },
      { via: 'callback', statusCode: 0, name: 'OverturoCaptureError', message: expect.stringContaining('no consent captured') },
    ]);
  });

  it('still submits the form and fires the error callback when the service goes down between rendering and submitting', async () => {
    const { tab, errors } = await openSignup('/signup');
    await tab.waitForSelector('svc-consent-field[data-state="ready"]');
    await tab.route(`${harness.url}/capture/v1/captures**`, (route) => route.abort('connectionrefused'));
    await tab.getByLabel('Partner offers').check();
    const form = await submit(tab);
    expect(form).toMatchObject({ email: 'ada@example.com', overturo_capture_token: '' });
    expect(errors).toEqual([
      { via: 'event', statusCode: 0 },
      { via: 'callback', statusCode: 0, name: 'OverturoCaptureError', message: expect.stringContaining('capture service unreachable') },
    ]);
  });
});
