import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { RecordsHarness, auth, type Json, type TestApp } from '../../test/harness';
import { RetentionSweep } from '../policies/retention-sweep';

const DAY = 86_400_000;

/** Spec: "Data deal" states (triggers: deal.ts); an accepted deal is a consent record. Issue 23, Deliver 3. */
describe('data licences and offers over HTTP', () => {
  const clock = new FakeClock('2026-09-01T08:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let licenseId: string;
  const post = (path: string, json: Json = {}) => http('POST', `${url}${path}`, { headers: auth(app.token), json });

  beforeAll(async () => {
    await harness.start('deals', { RETENTION_SWEEP_INTERVAL_MS: '0' });
    url = harness.url;
    app = await harness.newApp('research');
    const flowId = await harness.flow(app.token);
    const license = await post('/api/v1/data_licenses', {
      name: 'Partner licence',
      flow_id: flowId,
      purposes: ['offers'],
      data_categories: ['contact_details', 'purchases'],
      duration: 'P1Y',
      price: null,
      recipients: [{ party_id: 'partner-1', name: 'Partner' }],
      offer_window: 'P7D',
    });
    expect(license.status).toBe(201);
    expect(license.body).toMatchObject({ terms: { price: null, purposes: ['offers'] } });
    licenseId = license.body.id as string;
    const account = await post('/api/v1/data_licenses', {
      name: 'x',
      flow_id: flowId,
      purposes: ['account'],
      data_categories: ['c'],
      duration: 'P1Y',
      recipients: [],
    });
    expect([account.status, account.body.reason_code]).toEqual([422, 'license_purpose_not_in_flow']);
  });
  afterAll(() => harness.close());

  it('offered → user_revised → countered → accepted writes the consent record of the agreed terms', async () => {
    const offerId = (await post('/api/v1/data_offers', { license_id: licenseId, subject: { email: 'ada@example.com' } })).body.id as string;
    expect((await post(`/api/v1/data_offers/${offerId}/send`)).body).toMatchObject({
      state: 'offered',
      expires_at: '2026-09-08T08:00:00.000Z',
    });
    const revised = await post(`/api/v1/data_offers/${offerId}/revise`, {
      terms: { data_categories: ['contact_details'], duration: 'P3M' },
    });
    expect(revised.body).toMatchObject({ state: 'user_revised', terms: { data_categories: ['contact_details'], duration: 'P3M' } });
    const countered = await post(`/api/v1/data_offers/${offerId}/counter`, { terms: { duration: 'P6M' } });
    expect(countered.body).toMatchObject({ state: 'countered', terms: { data_categories: ['contact_details'], duration: 'P6M' } });
    const accepted = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    expect(accepted.body).toMatchObject({ state: 'accepted', record_id: expect.stringMatching(/^crec_us_/) });
    const recordId = accepted.body.record_id as string;
    const record = await http('GET', `${url}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      collection_channel: 'controller_attested',
      decisions: { offers: { decision: 'granted' }, newsletter: { decision: 'declined' } },
    });
    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === recordId)[0]);
    expect(event).toMatchObject({ subjectEmail: 'ada@example.com' });
    expect(
      (await post(`/api/v1/data_offers/${offerId}/use_checks`, { purpose: 'offers', data_category: 'contact_details' })).body,
    ).toMatchObject({ allowed: true });
    expect((await post(`/api/v1/data_offers/${offerId}/use_checks`, { purpose: 'offers', data_category: 'purchases' })).body).toMatchObject(
      { allowed: false, reason_code: 'data_category_not_agreed' },
    );
    // Withdrawing the consent stops the use.
    expect((await post(`/api/v1/consent_records/${recordId}/withdrawals`, {})).status).toBe(201);
    expect(
      (await post(`/api/v1/data_offers/${offerId}/use_checks`, { purpose: 'offers', data_category: 'contact_details' })).body,
    ).toMatchObject({ allowed: false, reason_code: 'consent_withdrawn' });
    // A second acceptance is refused: the deal is closed.
    expect((await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' })).body.reason_code).toBe('deal_move_not_allowed');
  });

  it("the retention sweep ends the deal's consent at the end of the deal's term", async () => {
    const offerId = (
      await post('/api/v1/data_offers', { license_id: licenseId, subject: { external_id: 'term' }, terms: { duration: 'P30D' } })
    ).body.id as string;
    await post(`/api/v1/data_offers/${offerId}/send`);
    const accepted = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    const recordId = accepted.body.record_id as string;
    const acceptedAt = Date.parse(accepted.body.accepted_at as string);
    clock.advance(30 * DAY - 1);
    expect((await harness.running.app.get(RetentionSweep).execute(app.id)).expired.map((e) => e.recordId)).not.toContain(recordId);
    clock.advance(1);
    const report = await harness.running.app.get(RetentionSweep).execute(app.id);
    expect(report.expired).toEqual([
      expect.objectContaining({ recordId, reason: 'deal_term', expiredAt: new Date(acceptedAt + 30 * DAY) }),
    ]);
    expect((await http('GET', `${url}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) })).body.status).toBe('expired');
    expect(
      (await post(`/api/v1/data_offers/${offerId}/use_checks`, { purpose: 'offers', data_category: 'contact_details' })).body,
    ).toMatchObject({ allowed: false, reason_code: 'deal_term_ended' });
  });

  it('an expired offer cannot be accepted', async () => {
    const offerId = (await post('/api/v1/data_offers', { license_id: licenseId, subject: { external_id: 'late' } })).body.id as string;
    await post(`/api/v1/data_offers/${offerId}/send`);
    clock.advance(7 * DAY);
    const late = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    expect([late.status, late.body.reason_code]).toEqual([410, 'offer_expired']);
    const read = await http('GET', `${url}/api/v1/data_offers/${offerId}`, { headers: auth(app.token) });
    expect(read.body).toMatchObject({ state: 'expired', record_id: null });
    expect((read.body.history as Json[]).map((m) => m.move)).toEqual(['create', 'send', 'expire']);
  });

  it('declines, and refuses the wrong side or state by name', async () => {
    const offerId = (await post('/api/v1/data_offers', { license_id: licenseId, subject: { external_id: 'grace' } })).body.id as string;
    const early = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    expect([early.status, early.body.reason_code]).toEqual([409, 'deal_move_not_allowed']);
    await post(`/api/v1/data_offers/${offerId}/send`);
    expect((await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'application' })).body.reason_code).toBe('deal_move_not_allowed');
    expect((await post(`/api/v1/data_offers/${offerId}/decline`, { actor: 'person', note: 'no thanks' })).body).toMatchObject({
      state: 'declined',
      record_id: null,
    });
    const bad = await post(`/api/v1/data_offers/${offerId}/decline`, { actor: 'someone' });
    expect(bad.status).toBe(422);
    const missing = await http('GET', `${url}/api/v1/data_offers/doff_us_aaaaaaaaaaaaaaaaaaaa`, { headers: auth(app.token) });
    expect([missing.status, missing.body.reason_code]).toEqual([404, 'data_offer_not_found']);
  });
});
