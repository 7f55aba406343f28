import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { RecordsHarness, auth, type Json, type TestApp } from '../../test/harness';
import { SweepExpiredCaptures } from './use-cases/sweep-expired-captures';

const ORIGIN = 'http://localhost:4555';

/**
 * Spec: Captured consent and receipts (24 h lifetime, commit), capture authorize endpoint, Other
 * rules (capture refusals by name), Authentication 2–3 (publishable key, allowed origins). Issue 6 item 3.
 */
describe('captures over HTTP', () => {
  const clock = new FakeClock('2026-07-01T10:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let other: TestApp;
  let flowId: string;
  let db: DataSource;

  const field = (purpose: string, checked: boolean, extra: Json = {}): Json => ({
    purpose,
    control: 'checkbox',
    checked,
    default_checked: false,
    required: false,
    ...extra,
  });
  const capture = (json: Json, headers: Record<string, string> = { 'x-publishable-key': app.pk, origin: ORIGIN }) =>
    http('POST', `${url}/capture/v1/captures`, { headers, json });
  const okBody = (): Json => ({ flow_id: flowId, fields: [field('newsletter', true), field('offers', false)] });
  const authorize = (token: string, json: Json, t = app.token) =>
    http('POST', `${url}/api/v1/decisions/${token}/authorize`, { headers: auth(t), json });
  async function newCapture(json: Json = okBody()): Promise<string> {
    const res = await capture(json);
    expect(res.status).toBe(201);
    return res.body.capture_token as string;
  }

  beforeAll(async () => {
    await harness.start('captures');
    url = harness.url;
    app = await harness.newApp('shop', ORIGIN);
    other = await harness.newApp('other');
    flowId = await harness.flow(app.token);
    db = harness.running.app.get(DataSource);
  });
  afterAll(() => harness.close());

  it('creates a capture from an allowed origin and commits it into a record with the browser channel', async () => {
    const res = await capture(okBody());
    expect(res.status).toBe(201);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.body).toMatchObject({
      object: 'capture',
      flow_id: flowId,
      flow_version: 1,
      channel: 'form_capture_browser',
      expires_at: '2026-07-02T10:00:00.000Z',
    });
    const token = res.body.capture_token as string;
    expect(token).toMatch(/^cap_us_[A-Za-z0-9_-]{43}$/);
    expect(await db.query(`SELECT count(*)::int AS n FROM consent_records.records`)).toEqual([{ n: 0 }]);

    clock.advance(5_000);
    const committed = await authorize(token, { subject: { email: 'ada@example.com', external_id: 'ada' }, suppress_receipt: true });
    expect(committed.status).toBe(200);
    expect(committed.body).toEqual({ status: 'committed', record_id: expect.stringMatching(/^crec_us_/), channel: 'form_capture_browser' });
    const record = await http('GET', `${url}/api/v1/consent_records/${committed.body.record_id as string}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      collection_channel: 'form_capture_browser',
      captured_at: '2026-07-01T10:00:00.000Z',
      recorded_at: '2026-07-01T10:00:05.000Z',
      subject: { email: 'ada@example.com', external_id: 'ada' },
    });
    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === committed.body.record_id)[0]);
    expect(event).toMatchObject({
      sendReceipt: false,
      collectionChannel: 'form_capture_browser',
      outcomes: [
        { purpose: 'newsletter', decision: 'granted' },
        { purpose: 'offers', decision: 'declined' },
      ],
    });
    const again = await authorize(token, { subject: { email: 'ada@example.com' } });
    expect([again.status, again.body.reason_code, (again.body.detail as Json).record_id]).toEqual([
      409,
      'capture_already_committed',
      committed.body.record_id,
    ]);
  });

  it("lets the snippet claim the service-rendered field channel only with that rendering's evidence", async () => {
    const res = await capture({ ...okBody(), channel: 'embedded_field_browser' });
    expect([res.status, res.body.reason_code]).toEqual([422, 'rendering_evidence_missing']);
    const rendered = await http('GET', `${url}/capture/v1/fields/${flowId}`, { headers: { 'x-publishable-key': app.pk, origin: ORIGIN } });
    const token = await newCapture({ ...okBody(), channel: 'embedded_field_browser', rendering_digest: rendered.body.rendering_digest });
    expect((await authorize(token, { subject: { external_id: 'field-user' } })).body.channel).toBe('embedded_field_browser');
  });

  it('refuses each capture problem by name', async () => {
    const cases: Array<[Json[], string, string]> = [
      [[field('newsletter', true, { control: 'text' }), field('offers', false)], 'field_cannot_carry_decision', 'newsletter'],
      [[field('newsletter', true), field('offers', true, { control: 'hidden' })], 'field_cannot_carry_decision', 'offers'],
      [[field('newsletter', true, { required: true }), field('offers', false)], 'required_field_mapped_to_consent', 'newsletter'],
      [[field('newsletter', true), field('offers', false), field('coupons', true)], 'purpose_not_in_flow', 'coupons'],
      [[field('newsletter', true)], 'consent_purpose_missing', 'offers'],
      [[field('newsletter', true, { default_checked: true }), field('offers', false)], 'consent_purpose_default_checked', 'newsletter'],
    ];
    for (const [fields, reason, purpose] of cases) {
      const res = await capture({ flow_id: flowId, fields });
      expect([res.status, res.body.reason_code, (res.body.detail as Json).purpose]).toEqual([422, reason, purpose]);
    }
    // A required control on a contract purpose is fine: only consent cannot be a condition.
    expect(
      (await capture({ flow_id: flowId, fields: [...(okBody().fields as Json[]), field('account', true, { required: true })] })).status,
    ).toBe(201);
  });

  it('expires an uncommitted capture after 24 hours, leaving no record (clock)', async () => {
    const records = async () => (await db.query(`SELECT count(*)::int AS n FROM consent_records.records`))[0].n as number;
    const before = await records();
    const late = await newCapture();
    const swept = await newCapture();
    clock.advance(24 * 3600_000 - 1);
    const justInTime = await newCapture();
    expect(
      (await db.query(`SELECT count(*)::int AS n FROM consent_records.captures WHERE committed_at IS NULL`))[0].n,
    ).toBeGreaterThanOrEqual(3);
    clock.advance(1);
    const res = await authorize(late, { subject: { email: 'late@example.com' } });
    expect([res.status, res.body.reason_code]).toEqual([410, 'capture_expired']);
    expect(await harness.running.app.get(SweepExpiredCaptures).execute()).toBeGreaterThanOrEqual(1);
    expect((await authorize(swept, { subject: { email: 'swept@example.com' } })).body.reason_code).toBe('capture_not_found');
    expect(await records()).toBe(before);
    expect((await authorize(justInTime, { subject: { email: 'ok@example.com' } })).status).toBe(200);
  });

  it('checks origins, preflights and credentials', async () => {
    const foreign = await capture(okBody(), { 'x-publishable-key': app.pk, origin: 'https://evil.example.com' });
    expect([foreign.status, foreign.body.reason_code]).toEqual([403, 'origin_not_allowed']);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect((await capture(okBody(), { 'x-publishable-key': app.pk })).body.reason_code).toBe('origin_not_allowed');
    expect((await capture(okBody(), { 'x-publishable-key': other.pk, origin: ORIGIN })).body.reason_code).toBe('origin_not_allowed');
    const preflight = (origin: string) =>
      http('OPTIONS', `${url}/capture/v1/captures?publishable_key=${app.pk}`, {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-publishable-key' },
      });
    const allowed = await preflight(ORIGIN);
    expect([allowed.status, allowed.headers.get('access-control-allow-origin')]).toEqual([204, ORIGIN]);
    expect((await preflight('https://evil.example.com')).body.reason_code).toBe('cors_origin_not_allowed');
    expect((await capture(okBody(), { origin: ORIGIN })).status).toBe(401);
    // An API token must never reach a browser: this route takes the publishable key only.
    expect((await capture(okBody(), { ...auth(app.token), origin: ORIGIN })).status).toBe(401);
    expect((await capture({ ...okBody(), flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa' })).body.reason_code).toBe('flow_not_found');
    expect((await capture({ ...okBody(), colour: 1 })).body.reason_code).toBe('invalid_request');
    expect((await capture({ ...okBody(), fields: [{ ...field('newsletter', true), checked: 'yes' }] })).body.reason_code).toBe(
      'invalid_request',
    );
    expect((await capture({ ...okBody(), channel: 'hosted' })).body.reason_code).toBe('validation_failed');
    expect((await capture({ ...okBody(), fields: [] })).body.reason_code).toBe('validation_failed');
    const malformed = await http('POST', `${url}/capture/v1/captures`, {
      headers: { 'x-publishable-key': app.pk, origin: ORIGIN, 'content-type': 'application/json' },
      raw: '{',
    });
    expect([malformed.status, malformed.body.reason_code]).toEqual([400, 'malformed_json']);
    const huge = await capture({ ...okBody(), flow_id: 'x'.repeat(1_100_000) });
    expect([huge.status, huge.body.reason_code]).toEqual([413, 'payload_too_large']);
  });

  it('refuses bad commits: unknown or foreign token, wrong auth, bad body', async () => {
    const token = await newCapture();
    expect((await authorize(token, { subject: { email: 'a@example.com' } }, other.token)).body.reason_code).toBe('capture_not_found');
    expect((await authorize('cap_us_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { subject: { email: 'a@example.com' } })).status).toBe(
      404,
    );
    expect((await authorize('nope', { subject: { email: 'a@example.com' } })).status).toBe(404);
    expect((await authorize(token, { subject: { email: 'a@example.com' } }, 'bad')).status).toBe(401);
    expect(
      (
        await http('POST', `${url}/api/v1/decisions/${token}/authorize`, {
          headers: { 'x-publishable-key': app.pk },
          json: { subject: { email: 'a@example.com' } },
        })
      ).status,
    ).toBe(403);
    expect((await authorize(token, {})).body.reason_code).toBe('invalid_request');
    expect((await authorize(token, { subject: {} })).body.reason_code).toBe('subject_reference_missing');
    expect((await authorize(token, { subject: { email: 'a@example.com' }, suppress_receipt: 'no' })).body.reason_code).toBe(
      'invalid_request',
    );
    expect((await authorize(token, { subject: { email: 'a@example.com' }, colour: 1 })).body.reason_code).toBe('invalid_request');
    expect((await authorize(token, { subject: { email: 'nope' } })).body.reason_code).toBe('validation_failed');
    const malformed = await http('POST', `${url}/api/v1/decisions/${token}/authorize`, {
      headers: { ...auth(app.token), 'content-type': 'application/json' },
      raw: '{',
    });
    expect(malformed.body.reason_code).toBe('malformed_json');
    expect((await authorize(token, { subject: { email: 'a@example.com' } })).status).toBe(200);
  });

  it('serves the snippet as plain JavaScript without credentials', async () => {
    const res = await http('GET', `${url}/capture/v1/snippet.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.text).toContain('overturo_capture_token');
  });
});
