import { createServer, type Server } from 'node:http';
import { FakeClock } from '@svc/config';
import { freePort, http } from '@svc/testing';
import { chromium, type Browser } from 'playwright-core';
import { RecordsHarness, auth, type Json, type TestApp } from './harness';

/**
 * Spec: What the service does 3 (capture snippet on the organisation's own controls), Capture
 * token (`overturo_capture_token`), Other rules (service unreachable: the form still submits and
 * an error callback fires). Issue 6 "Done when": real headless Chromium, the organisation's page
 * on an allowed localhost origin served by this test.
 */
describe('capture snippet in a real browser', () => {
  const clock = new FakeClock('2026-08-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let browser: Browser;
  let host: Server;
  let hostUrl: string;
  let app: TestApp;
  let flowId: string;
  let closedPort: number;
  const submissions: Array<Record<string, string>> = [];

  /** The organisation's own signup page: its own controls, bound by data attributes. */
  function page(snippetSrc: string, apiBase: string): string {
    return `<!doctype html><html><body>
      <form method="post" action="/submit" data-overturo-flow="${flowId}" data-overturo-key="${app.pk}" data-overturo-onerror="captureFailed">
        <input name="email" value="ada@example.com">
        <label><input type="checkbox" name="newsletter" data-overturo-purpose="newsletter"> Newsletter</label>
        <label><input type="checkbox" name="offers" data-overturo-purpose="offers"> Partner offers</label>
        <button id="signup" type="submit">Sign up</button>
      </form>
      <script>window.captureFailed = function (error) { window.reportCaptureError({ statusCode: error.statusCode, message: error.message, name: error.name }); };</script>
      <script src="${snippetSrc}" data-api-base="${apiBase}"></script>
    </body></html>`;
  }

  beforeAll(async () => {
    await harness.start('capture-browser');
    const port = await freePort();
    closedPort = await freePort();
    hostUrl = `http://localhost:${port}`;
    app = await harness.newApp('shop', hostUrl);
    flowId = await harness.flow(app.token);
    const snippet = (await http('GET', `${harness.url}/capture/v1/snippet.js`)).text;
    host = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/signup')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(`${harness.url}/capture/v1/snippet.js`, harness.url));
      // Same snippet, copied onto the organisation's server, talking to a service that is down.
      if (req.method === 'GET' && req.url === '/signup-offline')
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(page('/snippet.js', `http://127.0.0.1:${closedPort}`));
      if (req.method === 'GET' && req.url === '/snippet.js')
        return void res.writeHead(200, { 'content-type': 'application/javascript' }).end(snippet);
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

  it("binds the organisation's own checkboxes, submits the capture token with the form, and the commit shows in the status", async () => {
    const tab = await browser.newPage();
    const errors: Json[] = [];
    await tab.exposeFunction('reportCaptureError', (e: Json) => errors.push(e));
    await tab.goto(`${hostUrl}/signup`);
    await tab.check('input[name="newsletter"]');
    await Promise.all([tab.waitForURL(`${hostUrl}/submit`), tab.click('#signup')]);
    await tab.waitForSelector('#thanks');
    await tab.close();
    expect(errors).toEqual([]);
    const form = submissions.pop()!;
    expect(form).toMatchObject({ email: 'ada@example.com', newsletter: 'on' });
    expect(form.overturo_capture_token).toMatch(/^cap_us_[A-Za-z0-9_-]{43}$/);

    // The organisation's server commits the capture with the person's identity.
    const committed = await http('POST', `${harness.url}/api/v1/decisions/${form.overturo_capture_token}/authorize`, {
      headers: auth(app.token),
      json: { subject: { email: form.email, external_id: 'ada-1' } },
    });
    expect(committed.body).toEqual({ status: 'committed', record_id: expect.stringMatching(/^crec_us_/), channel: 'form_capture_browser' });
    const status = await http('GET', `${harness.url}/api/v1/applications/${app.id}/consent_status?subject[email]=ada%40example.com`, {
      headers: auth(app.token),
    });
    expect((status.body.purposes as Json[]).map((p) => [p.purpose, p.status, p.record_id])).toEqual([
      ['newsletter', 'granted', committed.body.record_id],
      ['offers', 'declined', committed.body.record_id],
    ]);
  });

  it('still submits the form and fires the error callback when the service is unreachable', async () => {
    const tab = await browser.newPage();
    const errors: Json[] = [];
    await tab.exposeFunction('reportCaptureError', (e: Json) => errors.push(e));
    await tab.goto(`${hostUrl}/signup-offline`);
    await tab.check('input[name="offers"]');
    await Promise.all([tab.waitForURL(`${hostUrl}/submit`), tab.click('#signup')]);
    await tab.waitForSelector('#thanks');
    await tab.close();
    const form = submissions.pop()!;
    expect(form).toMatchObject({ email: 'ada@example.com', offers: 'on', overturo_capture_token: '' });
    expect(errors).toEqual([
      { statusCode: 0, name: 'OverturoCaptureError', message: expect.stringContaining('capture service unreachable') },
    ]);
  });
});
