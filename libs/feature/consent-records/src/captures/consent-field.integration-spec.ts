import { createHash } from 'node:crypto';
import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { RecordsHarness, auth, type Json, type TestApp } from '../../test/harness';

const ORIGIN = 'http://localhost:4556';

/**
 * Spec: What the service does 3 (service-rendered consent field), Flow (capturable in your own
 * form only if…), Other rules (capture refusals by name), Authentication 2–3 (publishable key,
 * allowed origins), receipt extensions rendering_evidence / collection_channel. Issue 6 item 3.
 */
describe('service-rendered consent field over HTTP', () => {
  const clock = new FakeClock('2026-07-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let other: TestApp;
  let flowId: string;
  let db: DataSource;

  const browser = (extra: Record<string, string> = {}): Record<string, string> => ({
    'x-publishable-key': app.pk,
    origin: ORIGIN,
    ...extra,
  });
  const rendering = (flow: string, headers: Record<string, string> = browser()) =>
    http('GET', `${url}/capture/v1/fields/${flow}`, { headers });
  const capture = (json: Json) => http('POST', `${url}/capture/v1/captures`, { headers: browser(), json });
  const field = (purpose: string, checked: boolean): Json => ({
    purpose,
    control: 'checkbox',
    checked,
    default_checked: false,
    required: false,
  });
  const fieldCapture = (digest: string | undefined, flow = flowId): Json => ({
    flow_id: flow,
    channel: 'embedded_field_browser',
    ...(digest === undefined ? {} : { rendering_digest: digest }),
    fields: [field('newsletter', false), field('offers', true)],
  });
  const authorize = (token: string, json: Json) =>
    http('POST', `${url}/api/v1/decisions/${token}/authorize`, { headers: auth(app.token), json });
  const refusal = (res: { status: number; body: Json }): unknown[] => [res.status, res.body.reason_code];

  beforeAll(async () => {
    await harness.start('consent-field');
    url = harness.url;
    app = await harness.newApp('shop', ORIGIN);
    other = await harness.newApp('other', 'http://localhost:4557');
    flowId = await harness.flow(app.token);
    db = harness.running.app.get(DataSource);
  });
  afterAll(() => harness.close());

  it('serves the field script as plain JavaScript without credentials', async () => {
    const res = await http('GET', `${url}/capture/v1/field.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.text).toContain('customElements.define(TAG');
    expect(res.text).toContain("'svc-consent-field'");
    expect(res.text).toContain('overturo_capture_token');
  });

  it("renders the active version's consent purposes as unticked, optional checkboxes with their digest", async () => {
    const res = await rendering(flowId);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ object: 'consent_field', flow_id: flowId, flow_version: 1, locale: 'en' });
    const html = res.body.html as string;
    expect(res.body.rendering_digest).toBe(createHash('sha256').update(html, 'utf8').digest('hex'));
    expect([...html.matchAll(/data-svc-purpose="([a-z_]+)"/g)].map((m) => m[1])).toEqual(['newsletter', 'offers']);
    expect(html).toContain('Partner offers');
    expect(html).not.toMatch(/checked|required/);
  });

  it('commits a field capture with its rendering evidence into the event, channel embedded_field_browser', async () => {
    const digest = (await rendering(flowId)).body.rendering_digest as string;
    const created = await capture(fieldCapture(digest));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'capture', flow_id: flowId, flow_version: 1, channel: 'embedded_field_browser' });
    const token = created.body.capture_token as string;
    expect(
      await db.query(`SELECT rendering_digest FROM consent_records.captures WHERE token_sha256 = $1`, [
        createHash('sha256').update(token).digest('hex'),
      ]),
    ).toEqual([{ rendering_digest: digest }]);

    const committed = await authorize(token, { subject: { email: 'field@example.com' } });
    expect(committed.body).toEqual({
      status: 'committed',
      record_id: expect.stringMatching(/^crec_us_/),
      channel: 'embedded_field_browser',
    });
    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === committed.body.record_id)[0]);
    expect(event).toMatchObject({
      collectionChannel: 'embedded_field_browser',
      renderingEvidenceDigest: digest,
      outcomes: [
        { purpose: 'newsletter', decision: 'declined' },
        { purpose: 'offers', decision: 'granted' },
      ],
    });

    // The snippet's own controls carry no rendering evidence: the event says nothing about one.
    const snippet = await capture({ flow_id: flowId, fields: [field('newsletter', true), field('offers', false)] });
    const viaSnippet = await authorize(snippet.body.capture_token as string, { subject: { email: 'snippet@example.com' } });
    const snippetEvent = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === viaSnippet.body.record_id)[0]);
    expect(snippetEvent).toMatchObject({ collectionChannel: 'form_capture_browser', renderingEvidenceDigest: '' });
  });

  it('refuses a field capture without, with a foreign, or with an outdated rendering, by name', async () => {
    const v1 = (await rendering(flowId)).body.rendering_digest as string;
    expect(refusal(await capture(fieldCapture(undefined)))).toEqual([422, 'rendering_evidence_missing']);
    expect(refusal(await capture(fieldCapture('0'.repeat(64))))).toEqual([422, 'rendering_evidence_mismatch']);
    expect(refusal(await capture({ ...fieldCapture(v1), channel: 'form_capture_browser' }))).toEqual([
      422,
      'rendering_evidence_not_applicable',
    ]);
    expect(refusal(await capture(fieldCapture('NOT-A-DIGEST')))).toEqual([422, 'validation_failed']);
    expect(refusal(await capture(fieldCapture(v1.toUpperCase())))).toEqual([422, 'validation_failed']);

    // New wording activated after the page rendered: the old rendering no longer speaks for the flow.
    const flow = await harness.flow(app.token);
    const before = (await rendering(flow)).body.rendering_digest as string;
    expect(
      (await http('PATCH', `${url}/api/v1/flows/${flow}`, { headers: auth(app.token), json: { presentation: { title: 'New wording' } } }))
        .status,
    ).toBe(200);
    expect((await http('POST', `${url}/api/v1/flows/${flow}/activate`, { headers: auth(app.token) })).status).toBe(200);
    const stale = await capture(fieldCapture(before, flow));
    expect([...refusal(stale), stale.body.detail]).toEqual([422, 'rendering_evidence_mismatch', { flow_id: flow, flow_version: 2 }]);
    const current = await rendering(flow);
    expect([current.body.flow_version, (current.body.html as string).includes('New wording')]).toEqual([2, true]);
    expect((await capture(fieldCapture(current.body.rendering_digest as string, flow))).status).toBe(201);
  });

  it("refuses flows that are not capturable in the organisation's own form, by name", async () => {
    const draft = await harness.flow(app.token, { activate: false });
    const openEnded = await harness.flow(app.token, { consentDuration: null });
    expect(refusal(await rendering(draft))).toEqual([409, 'flow_not_active']);
    expect(refusal(await rendering(openEnded))).toEqual([422, 'flow_not_capturable']);
    expect(refusal(await rendering('flw_us_aaaaaaaaaaaaaaaaaaaa'))).toEqual([404, 'flow_not_found']);
    // Another application's flow answers like an unknown one.
    const foreignFlow = await harness.flow(other.token);
    expect(refusal(await rendering(foreignFlow))).toEqual([404, 'flow_not_found']);
  });

  it('answers bad requests with 4xx: malformed, unknown flow, foreign origin, wrong key', async () => {
    expect(refusal(await rendering('not-a-flow'))).toEqual([404, 'flow_not_found']);
    expect(refusal(await rendering('%00%3Cscript%3E'))).toEqual([400, 'invalid_request']);
    expect((await rendering('x'.repeat(5000))).status).toBe(414);
    expect(refusal(await rendering('x'.repeat(90)))).toEqual([404, 'flow_not_found']);
    expect(refusal(await rendering('flw_us_zzzzzzzzzzzzzzzzzzzz'))).toEqual([404, 'flow_not_found']);

    const foreign = await rendering(flowId, browser({ origin: 'https://evil.example.com' }));
    expect(refusal(foreign)).toEqual([403, 'origin_not_allowed']);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(refusal(await rendering(flowId, { 'x-publishable-key': app.pk }))).toEqual([403, 'origin_not_allowed']);
    // Another application's key from this origin: the origin is not one of that application's.
    expect(refusal(await rendering(flowId, browser({ 'x-publishable-key': other.pk })))).toEqual([403, 'origin_not_allowed']);
    // ... and from its own origin the flow is not its own.
    expect(refusal(await rendering(flowId, { 'x-publishable-key': other.pk, origin: 'http://localhost:4557' }))).toEqual([
      404,
      'flow_not_found',
    ]);

    expect((await rendering(flowId, { origin: ORIGIN })).status).toBe(401);
    expect((await rendering(flowId, browser({ 'x-publishable-key': 'pk_test_unknownkey0000' }))).status).toBe(401);
    expect((await rendering(flowId, browser({ 'x-publishable-key': 'not a key' }))).status).toBe(401);
    expect((await rendering(flowId, { ...auth(app.token), origin: ORIGIN })).status).toBe(401);

    const preflight = (origin: string) =>
      http('OPTIONS', `${url}/capture/v1/fields/${flowId}?publishable_key=${app.pk}`, {
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-publishable-key' },
      });
    const allowed = await preflight(ORIGIN);
    expect([
      allowed.status,
      allowed.headers.get('access-control-allow-origin'),
      allowed.headers.get('access-control-allow-methods'),
    ]).toEqual([204, ORIGIN, 'GET, POST, OPTIONS']);
    expect(refusal(await preflight('https://evil.example.com'))).toEqual([403, 'cors_origin_not_allowed']);
  });
});
