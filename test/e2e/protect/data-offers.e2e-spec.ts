import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { DataSource as DataSourceToken } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const DAY = 86_400_000;

jest.setTimeout(120_000);

/**
 * Protect, licences and offers (issue 23, Deliver 3 and "Done when" 2). Spec: "Data deal" states
 * draft → offered → countered ↔ user_revised → accepted / declined / expired; the triggers are
 * ours (consent-records `deals/deal.ts`). An accepted deal is a consent record with its own receipt,
 * and a use of the data is checked against it.
 */
describe('data offers: from draft through counter and revision to an accepted consent', () => {
  const clock = new FakeClock('2026-09-01T08:00:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let licenseId: string;

  const post = (path: string, json: Record<string, unknown> = {}) => http('POST', `${us}${path}`, { headers: auth(app.token), json });

  beforeAll(async () => {
    stack = await startRegions('protect_offers', { clock, regions: ['us'], env: { RETENTION_SWEEP_INTERVAL_MS: '0' } });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme research', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await post('/api/v1/flows', {
      name: 'Research data',
      locale: 'en-GB',
      presentation: { title: 'Share your data for research' },
      policy_url: 'https://acme.example/privacy',
      purposes: [
        { key: 'research', label: 'Research', description: 'Studies of anonymised usage' },
        { key: 'product_ads', label: 'Product ads', description: 'Ads for our products' },
      ],
      consent_duration: 'P2Y',
    });
    expect(flow.status).toBe(201);
    expect((await post(`/api/v1/flows/${flow.body.id as string}/activate`)).status).toBe(200);
    const license = await post('/api/v1/data_licenses', {
      name: 'Research licence',
      flow_id: flow.body.id,
      purposes: ['research', 'product_ads'],
      data_categories: ['usage_history', 'location'],
      duration: 'P1Y',
      price: { amount: '20.00', currency: 'EUR' },
      recipients: [
        { party_id: 'uni-lab', name: 'University lab' },
        { party_id: 'ads-co', name: 'Ads Co' },
      ],
      offer_window: 'P7D',
    });
    expect(license.status).toBe(201);
    expect(license.body).toMatchObject({
      object: 'data_license',
      flow_id: flow.body.id,
      offer_window: 'P7D',
      terms: { duration: 'P1Y', price: { amount: '20.00', currency: 'EUR' } },
    });
    licenseId = license.body.id as string;
    expect(licenseId).toMatch(/^dlic_us_[a-z2-7]{20}$/);
  });
  afterAll(() => stack?.close());

  it('goes offered → user_revised → countered → accepted, and the acceptance is a consent with its receipt', async () => {
    const draft = await post('/api/v1/data_offers', { license_id: licenseId, subject: { email: 'ada@example.com' } });
    expect(draft.status).toBe(201);
    const offerId = draft.body.id as string;
    expect(draft.body).toMatchObject({
      object: 'data_offer',
      state: 'draft',
      expires_at: null,
      record_id: null,
      terms: { purposes: ['research', 'product_ads'] },
    });

    const offered = await post(`/api/v1/data_offers/${offerId}/send`);
    expect(offered.body).toMatchObject({ state: 'offered', expires_at: '2026-09-08T08:00:00.000Z' });

    clock.advance(DAY);
    // The person wants research only, for six months, at a higher price, and only for the lab.
    const revised = await post(`/api/v1/data_offers/${offerId}/revise`, {
      terms: {
        purposes: ['research'],
        data_categories: ['usage_history'],
        duration: 'P6M',
        price: { amount: '35.00', currency: 'EUR' },
        recipients: [{ party_id: 'uni-lab', name: 'University lab' }],
      },
      note: 'research only',
    });
    expect(revised.body).toMatchObject({
      state: 'user_revised',
      expires_at: '2026-09-09T08:00:00.000Z',
      terms: { purposes: ['research'], duration: 'P6M', price: { amount: '35.00' } },
    });
    // The person cannot accept their own revision; the party cannot accept its own offer.
    const own = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    expect([own.status, own.body.reason_code]).toEqual([409, 'deal_move_not_allowed']);

    clock.advance(DAY);
    const countered = await post(`/api/v1/data_offers/${offerId}/counter`, { terms: { price: { amount: '28.00', currency: 'EUR' } } });
    expect(countered.body).toMatchObject({
      state: 'countered',
      terms: {
        purposes: ['research'],
        duration: 'P6M',
        price: { amount: '28.00', currency: 'EUR' },
        recipients: [{ party_id: 'uni-lab' }],
      },
    });
    // The party cannot counter its own counter: it waits for the person.
    const twice = await post(`/api/v1/data_offers/${offerId}/counter`, { terms: { duration: 'P3M' } });
    expect([twice.status, twice.body.reason_code]).toEqual([409, 'deal_move_not_allowed']);

    clock.advance(DAY);
    const accepted = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person', note: 'deal' });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({
      state: 'accepted',
      accepted_at: '2026-09-04T08:00:00.000Z',
      expires_at: null,
      record_id: expect.stringMatching(/^crec_us_/),
    });
    expect((accepted.body.history as Array<Record<string, unknown>>).map((m) => [m.move, m.actor, m.from, m.to])).toEqual([
      ['create', 'application', null, 'draft'],
      ['send', 'application', 'draft', 'offered'],
      ['revise', 'person', 'offered', 'user_revised'],
      ['counter', 'application', 'user_revised', 'countered'],
      ['accept', 'person', 'countered', 'accepted'],
    ]);
    const recordId = accepted.body.record_id as string;

    const record = await http('GET', `${us}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) });
    expect(record.body).toMatchObject({
      status: 'active',
      subject: { email: 'ada@example.com' },
      captured_at: '2026-09-04T08:00:00.000Z',
      idempotency_key: `deal:${offerId}`,
      purposes: [
        { purpose: 'product_ads', decision: 'declined', status: 'declined' },
        { purpose: 'research', decision: 'granted', status: 'granted' },
      ],
    });
    const receipt = await waitFor(async () => {
      const res = await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: auth(app.token) });
      return res.status === 200 ? res : undefined;
    });
    expect(receipt.headers.get('x-svc-receipt-status')).toBe('active');
    expect((receipt.body.record as Record<string, unknown>).record_id).toBe(recordId);
    expect((receipt.body.pii_processing as { purposes: Array<{ purpose_id: string }> }).purposes.map((p) => p.purpose_id)).toEqual([
      'research',
    ]);

    // The data use is checked against the deal.
    const check = (json: Record<string, unknown>) => post(`/api/v1/data_offers/${offerId}/use_checks`, json);
    expect((await check({ purpose: 'research', data_category: 'usage_history', recipient: 'uni-lab' })).body).toEqual({
      object: 'data_use_check',
      offer_id: offerId,
      allowed: true,
      reason_code: null,
      record_id: recordId,
    });
    expect((await check({ purpose: 'product_ads', data_category: 'usage_history' })).body).toMatchObject({
      allowed: false,
      reason_code: 'purpose_not_agreed',
    });
    expect((await check({ purpose: 'research', data_category: 'location' })).body).toMatchObject({
      allowed: false,
      reason_code: 'data_category_not_agreed',
    });
    expect((await check({ purpose: 'research', data_category: 'usage_history', recipient: 'ads-co' })).body).toMatchObject({
      allowed: false,
      reason_code: 'recipient_not_agreed',
    });
    clock.advance(200 * DAY);
    expect((await check({ purpose: 'research', data_category: 'usage_history' })).body).toMatchObject({
      allowed: false,
      reason_code: 'deal_term_ended',
    });
  });

  it('refuses terms outside the licence by name', async () => {
    const offer = await post('/api/v1/data_offers', {
      license_id: licenseId,
      subject: { external_id: 'grace' },
      terms: { data_categories: ['health'] },
    });
    expect([offer.status, offer.body.reason_code, (offer.body.detail as Record<string, unknown>).field]).toEqual([
      422,
      'terms_outside_license',
      'data_categories',
    ]);
    const draft = await post('/api/v1/data_offers', { license_id: licenseId, subject: { external_id: 'grace' } });
    await post(`/api/v1/data_offers/${draft.body.id as string}/send`);
    const revised = await post(`/api/v1/data_offers/${draft.body.id as string}/revise`, {
      terms: { recipients: [{ party_id: 'broker', name: 'Broker' }] },
    });
    expect([revised.status, revised.body.reason_code, (revised.body.detail as Record<string, unknown>).value]).toEqual([
      422,
      'terms_outside_license',
      'broker',
    ]);
  });

  it('an expired offer cannot be accepted', async () => {
    const draft = await post('/api/v1/data_offers', { license_id: licenseId, subject: { email: 'late@example.com' } });
    const offerId = draft.body.id as string;
    await post(`/api/v1/data_offers/${offerId}/send`);
    clock.advance(7 * DAY);
    const read = await http('GET', `${us}/api/v1/data_offers/${offerId}`, { headers: auth(app.token) });
    expect(read.body.state).toBe('expired');
    const late = await post(`/api/v1/data_offers/${offerId}/accept`, { actor: 'person' });
    expect([late.status, late.body.reason_code]).toEqual([410, 'offer_expired']);
    const after = await http('GET', `${us}/api/v1/data_offers/${offerId}`, { headers: auth(app.token) });
    expect(after.body).toMatchObject({ state: 'expired', record_id: null });
    expect((after.body.history as Array<Record<string, unknown>>).at(-1)).toMatchObject({
      move: 'expire',
      actor: 'platform',
      from: 'offered',
      to: 'expired',
    });
    // Still refused afterwards, for either side and any move.
    expect((await post(`/api/v1/data_offers/${offerId}/revise`, { terms: { duration: 'P1M' } })).status).toBe(410);
    const count = await stack.process.us.app
      .get(DataSourceToken)
      .query(`SELECT count(*)::int AS n FROM consent_records.records WHERE subject_email = 'late@example.com'`);
    expect(count).toEqual([{ n: 0 }]);
  });

  it('keeps offers and licences to their application', async () => {
    const other = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Other', environment: 'development' }));
    const foreign = await http('GET', `${us}/api/v1/data_licenses/${licenseId}`, { headers: auth(other.apiToken) });
    expect([foreign.status, foreign.body.reason_code]).toEqual([404, 'data_license_not_found']);
    const offer = await http('POST', `${us}/api/v1/data_offers`, {
      headers: auth(other.apiToken),
      json: { license_id: licenseId, subject: { email: 'x@example.com' } },
    });
    expect([offer.status, offer.body.reason_code]).toEqual([404, 'data_license_not_found']);
  });
});
