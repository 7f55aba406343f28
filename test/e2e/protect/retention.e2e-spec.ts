import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyWebhook } from '@svc/sdk-webhooks';
import { http, waitFor, LoopbackReceiver } from '@svc/testing';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const DAY = 86_400_000;

jest.setTimeout(120_000);

/**
 * Protect, data policies and retention (issue 23, Deliver 1 and "Done when" 3). Spec: consent
 * status `fulfilled → expired`, the receipt's `consent expired` event state and `validity_duration`,
 * "the receipt status is derived from the event projection", Events → Webhooks, the audit chain.
 * The clock is a fake one: the sweep ends a consent when the clock passes its end, not before.
 */
describe('retention: the sweep ends consents at the end of their term or of a policy retention', () => {
  const clock = new FakeClock('2026-06-01T09:00:00.000Z');
  const receiver = new LoopbackReceiver();
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let secret: string;

  async function flow(consentDuration: string): Promise<string> {
    const created = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Newsletter',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'offers', label: 'Partner offers', description: 'Offers from partners' },
        ],
        consent_duration: consentDuration,
      },
    });
    expect(created.status).toBe(201);
    expect(
      (await http('POST', `${us}/api/v1/flows/${created.body.id as string}/activate`, { headers: auth(app.token), json: {} })).status,
    ).toBe(200);
    return created.body.id as string;
  }

  async function record(flowId: string, email: string): Promise<string> {
    const res = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { email },
        decisions: {
          newsletter: { decision: 'granted', default_checked: false, mandatory: false },
          offers: { decision: 'granted', default_checked: false, mandatory: false },
        },
        captured_at: clock.now().toISOString(),
      },
    });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    await waitFor(
      async () => (await http('GET', `${us}/api/v1/consent_receipts/${id}`, { headers: auth(app.token) })).status === 200 || undefined,
    );
    return id;
  }

  const sweep = async () => {
    const res = await http('POST', `${us}/api/v1/policies/retention_sweeps`, { headers: auth(app.token), json: {} });
    expect(res.status).toBe(200);
    return res.body as { expired_count: number; expired: Array<Record<string, unknown>> };
  };
  const receipt = (id: string) => http('GET', `${us}/api/v1/consent_receipts/${id}`, { headers: auth(app.token) });
  const auditEntriesOf = async (type: string, recordId: string) => {
    const res = await http('GET', `${us}/api/v1/audit/entries?limit=100`, { headers: auth(app.token) });
    expect(res.status).toBe(200);
    return (res.body.data as Array<{ type: string; canonical: string }>).filter((e) => e.type === type && e.canonical.includes(recordId));
  };

  beforeAll(async () => {
    await receiver.start();
    // The background sweep is off: each test sweeps when it has moved the clock.
    stack = await startRegions('protect_retention', { clock, regions: ['us'], env: { RETENTION_SWEEP_INTERVAL_MS: '0' } });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme retention', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const sub = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(app.token),
      json: { url: receiver.url('/expired'), events: ['consent.expired'] },
    });
    expect(sub.status).toBe(201);
    secret = sub.body.secret as string;
  });
  afterAll(async () => {
    await stack?.close();
    await receiver.close();
  });

  it('a consent with a 1-day duration expires under the clock, with webhook, receipt status and audit entry', async () => {
    const flowId = await flow('P1D');
    const recordId = await record(flowId, 'ada@example.com');
    const given = await receipt(recordId);
    expect(given.headers.get('x-svc-receipt-status')).toBe('active');
    const consentGiven = (given.body.event as Array<Record<string, unknown>>).find((e) => e.event_state === 'consent given');
    expect(consentGiven).toMatchObject({ validity_duration: 'P1D' });

    clock.advance(DAY - 1000);
    expect((await sweep()).expired.map((e) => e.record_id)).not.toContain(recordId);
    expect((await http('GET', `${us}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) })).body.status).toBe('active');

    clock.advance(2000);
    const report = await sweep();
    expect(report.expired).toEqual([
      {
        record_id: recordId,
        flow_id: flowId,
        expired_at: '2026-06-02T09:00:00.000Z',
        reason: 'consent_duration',
        policy_id: null,
        policy_version: null,
        purposes: ['newsletter', 'offers'],
      },
    ]);
    // A second sweep finds nothing more to end.
    expect((await sweep()).expired.map((e) => e.record_id)).not.toContain(recordId);

    const delivery = await waitFor(() =>
      receiver.on('/expired').find((r) => (r.body.data as Record<string, unknown>).record_id === recordId),
    );
    expect(verifyWebhook({ rawBody: delivery.rawBody, headers: delivery.headers, secrets: [secret], now: clock.now() }).eventType).toBe(
      'consent.expired',
    );
    expect(delivery.body).toMatchObject({
      event: 'consent.expired',
      application_id: app.id,
      data: {
        record_id: recordId,
        flow_id: flowId,
        purposes: ['newsletter', 'offers'],
        reason: 'consent_duration',
        expired_at: '2026-06-02T09:00:00Z',
        subject_email: 'ada@example.com',
      },
    });

    const expired = await waitFor(async () => {
      const res = await receipt(recordId);
      return (res.body.event as Array<Record<string, unknown>>).filter((e) => e.event_state === 'consent expired').length > 0
        ? res
        : undefined;
    });
    expect(expired.headers.get('x-svc-receipt-status')).toBe('expired');
    expect((expired.body.event as Array<Record<string, unknown>>).filter((e) => e.event_state === 'consent expired')).toEqual([
      expect.objectContaining({ event_time: '2026-06-02T09:00:00.000Z', event_type: 'regular', event_channel: 'end_of_term' }),
    ]);
    expect((await http('GET', `${us}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) })).body).toMatchObject({
      status: 'expired',
      purposes: [{ status: 'expired' }, { status: 'expired' }],
    });

    const entries = await waitFor(async () =>
      (await auditEntriesOf('consent.expired', recordId)).length > 0 ? auditEntriesOf('consent.expired', recordId) : undefined,
    );
    expect(entries).toHaveLength(1);
    // The chain holds the record id and the sealed subject, never the email in clear.
    expect(entries[0]!.canonical).not.toContain('ada@example.com');
    const verified = await http('GET', `${us}/api/v1/audit/verify`, { headers: auth(app.token) });
    expect(verified.body).toMatchObject({ valid: true });
  });

  it('an active policy ends a granted purpose at its retention, before the flow term; its versions are immutable once active', async () => {
    const flowId = await flow('P1Y');
    const created = await http('POST', `${us}/api/v1/policies`, {
      headers: auth(app.token),
      json: {
        name: 'Marketing retention',
        rules: [{ purpose: 'offers', data_category: 'contact_details', retention: 'P30D' }],
        flow_ids: [flowId],
      },
    });
    expect(created.status).toBe(201);
    const policyId = created.body.id as string;
    expect(created.body).toMatchObject({
      object: 'data_policy',
      status: 'draft',
      version: 1,
      version_status: 'draft',
      active_version: null,
      flow_ids: [flowId],
    });
    expect(policyId).toMatch(/^pol_us_[a-z2-7]{20}$/);

    // Captured at 2026-06-02T09:00:01Z (the first test moved the clock): offers' data may be kept until 2026-07-02T09:00:01Z.
    const recordId = await record(flowId, 'grace@example.com');
    clock.advance(31 * DAY);
    // A draft governs nothing.
    expect((await sweep()).expired.map((e) => e.record_id)).not.toContain(recordId);

    const activated = await http('POST', `${us}/api/v1/policies/${policyId}/activate`, { headers: auth(app.token), json: {} });
    expect(activated.body).toMatchObject({ status: 'active', version: 1, version_status: 'active', active_version: 1 });
    // A change to the active version opens version 2 as a draft; version 1 stays as it was.
    const changed = await http('PATCH', `${us}/api/v1/policies/${policyId}`, {
      headers: auth(app.token),
      json: { rules: [{ purpose: 'offers', data_category: 'contact_details', retention: 'P90D' }] },
    });
    expect(changed.body).toMatchObject({ version: 2, version_status: 'draft', active_version: 1, latest_version: 2 });
    const v1 = await http('GET', `${us}/api/v1/policies/${policyId}/versions/1`, { headers: auth(app.token) });
    expect(v1.body).toMatchObject({ version_status: 'active', rules: [{ retention: 'P30D' }] });

    const report = await sweep();
    expect(report.expired).toEqual([
      expect.objectContaining({
        record_id: recordId,
        reason: 'retention_policy',
        policy_id: policyId,
        policy_version: 1,
        expired_at: '2026-07-02T09:00:01.000Z',
      }),
    ]);
    const delivery = await waitFor(() =>
      receiver.on('/expired').find((r) => (r.body.data as Record<string, unknown>).record_id === recordId),
    );
    expect(delivery.body.data).toMatchObject({ reason: 'retention_policy', policy_id: policyId, policy_version: 1 });
    expect((await http('GET', `${us}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) })).body).toMatchObject({
      status: 'expired',
      expires_at: '2026-07-02T09:00:01.000Z',
    });
  });

  it('refuses bad policies by name and never lets another application read one', async () => {
    const unknownFlow = await http('POST', `${us}/api/v1/policies`, {
      headers: auth(app.token),
      json: {
        name: 'x',
        rules: [{ purpose: 'offers', data_category: 'contact', retention: 'P1D' }],
        flow_ids: ['flw_us_aaaaaaaaaaaaaaaaaaaa'],
      },
    });
    expect([unknownFlow.status, unknownFlow.body.reason_code]).toEqual([422, 'policy_flow_not_found']);
    const duplicate = await http('POST', `${us}/api/v1/policies`, {
      headers: auth(app.token),
      json: {
        name: 'x',
        rules: [
          { purpose: 'offers', data_category: 'contact', retention: 'P1D' },
          { purpose: 'offers', data_category: 'contact', retention: 'P2D' },
        ],
      },
    });
    expect([duplicate.status, duplicate.body.reason_code]).toEqual([422, 'policy_rule_duplicate']);
    const badDuration = await http('POST', `${us}/api/v1/policies`, {
      headers: auth(app.token),
      json: { name: 'x', rules: [{ purpose: 'offers', data_category: 'contact', retention: '30 days' }] },
    });
    expect(badDuration.status).toBe(422);
    expect(JSON.stringify(badDuration.body)).toContain('retention');

    const mine = await http('POST', `${us}/api/v1/policies`, {
      headers: auth(app.token),
      json: { name: 'Mine', rules: [{ purpose: 'offers', data_category: 'contact', retention: 'P1D' }] },
    });
    const other = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Other', environment: 'development' }));
    const read = await http('GET', `${us}/api/v1/policies/${mine.body.id as string}`, { headers: auth(other.apiToken) });
    expect([read.status, read.body.reason_code]).toEqual([404, 'policy_not_found']);
    const list = await http('GET', `${us}/api/v1/policies`, { headers: auth(other.apiToken) });
    expect(list.body.data).toEqual([]);
  });
});
