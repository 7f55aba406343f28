import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { RecordsHarness, auth, type Json, type TestApp } from '../../test/harness';
import { subjectRef } from '../directory/directory';
import { RetentionSweep } from './retention-sweep';

const DIRECTORY_KEY = Buffer.alloc(32, 7);

const DAY = 86_400_000;

/** Protect: data policies and the retention sweep (issue 23, Deliver 1). Spec: consent `expired`, `consent expired`. */
describe('data policies and the retention sweep over HTTP', () => {
  const clock = new FakeClock('2026-06-01T09:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  const post = (path: string, json: Json = {}) => http('POST', `${url}${path}`, { headers: auth(app.token), json });
  const record = async (flowId: string, email: string) => {
    const res = await post('/api/v1/consent_records', {
      flow_id: flowId,
      subject: { email },
      decisions: {
        newsletter: { decision: 'granted', default_checked: false, mandatory: false },
        offers: { decision: 'granted', default_checked: false, mandatory: false },
      },
      captured_at: clock.now().toISOString(),
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  beforeAll(async () => {
    // With a directory key, so the person's cross-border status follows the expiry.
    await harness.start('retention', { DIRECTORY_KEY: DIRECTORY_KEY.toString('base64'), RETENTION_SWEEP_INTERVAL_MS: '0' });
    url = harness.url;
    app = await harness.newApp('retention');
  });
  afterAll(() => harness.close());

  it('ends a 1-day consent when the clock passes its end, once, with consent.expired', async () => {
    const flowId = await harness.flow(app.token, { consentDuration: 'P1D' });
    const recordId = await record(flowId, 'ada@example.com');
    clock.advance(DAY - 1);
    expect((await harness.running.app.get(RetentionSweep).execute()).expired.map((e) => e.recordId)).not.toContain(recordId);
    clock.advance(1);
    const report = (await post('/api/v1/policies/retention_sweeps')).body;
    expect(report).toMatchObject({
      object: 'retention_sweep',
      expired_count: 1,
      expired: [
        { record_id: recordId, reason: 'consent_duration', expired_at: '2026-06-02T09:00:00.000Z', purposes: ['newsletter', 'offers'] },
      ],
    });
    expect((await post('/api/v1/policies/retention_sweeps')).body.expired_count).toBe(0);
    const event = await waitFor(() => harness.eventsOf('consent.expired', (p) => p.recordId === recordId)[0]);
    expect(event).toMatchObject({ reason: 'consent_duration', purposes: ['newsletter', 'offers'], subjectEmail: 'ada@example.com' });
    expect((await http('GET', `${url}/api/v1/consent_records/${recordId}`, { headers: auth(app.token) })).body.status).toBe('expired');
    // The directory is told the person's purposes went inactive.
    const ref = subjectRef(DIRECTORY_KEY, app.id, { email: 'ada@example.com' });
    const last = await waitFor(
      () => harness.eventsOf('directory.subject_status', (p) => p.subjectRef === ref && (p.activeCount as number) === 0)[0],
    );
    expect(last).toMatchObject({
      purposes: [
        { purpose: 'newsletter', status: 'inactive' },
        { purpose: 'offers', status: 'inactive' },
      ],
    });
  });

  it('a withdrawn consent is never expired, and an active policy ends a consent at its retention', async () => {
    const flowId = await harness.flow(app.token, { consentDuration: 'P1Y' });
    const withdrawn = await record(flowId, 'w@example.com');
    expect((await post(`/api/v1/consent_records/${withdrawn}/withdrawals`)).status).toBe(201);
    const kept = await record(flowId, 'k@example.com');
    const policy = await post('/api/v1/policies', {
      name: 'Offers',
      rules: [{ purpose: 'offers', data_category: 'contact_details', retention: 'P10D' }],
      flow_ids: [flowId],
    });
    expect(policy.status).toBe(201);
    const start = clock.now().getTime();
    clock.advance(11 * DAY);
    expect((await post('/api/v1/policies/retention_sweeps')).body.expired_count).toBe(0);
    await post(`/api/v1/policies/${policy.body.id as string}/activate`);
    const immutable = await http('PATCH', `${url}/api/v1/policies/${policy.body.id as string}`, {
      headers: auth(app.token),
      json: { name: 'Renamed' },
    });
    expect(immutable.body).toMatchObject({ version: 2, version_status: 'draft', active_version: 1, name: 'Renamed' });
    const report = (await post('/api/v1/policies/retention_sweeps')).body as { expired: Json[] };
    expect(report.expired).toEqual([
      expect.objectContaining({
        record_id: kept,
        reason: 'retention_policy',
        policy_id: policy.body.id,
        policy_version: 1,
        expired_at: new Date(start + 10 * DAY).toISOString(),
      }),
    ]);
    expect(
      (await http('GET', `${url}/api/v1/policies/${policy.body.id as string}/versions/1`, { headers: auth(app.token) })).body,
    ).toMatchObject({ name: 'Offers', version_status: 'active' });
    // A policy's earlier end reaches the directory too (the flow's own term is a year away).
    const keptRef = subjectRef(DIRECTORY_KEY, app.id, { email: 'k@example.com' });
    await waitFor(
      () => harness.eventsOf('directory.subject_status', (p) => p.subjectRef === keptRef && (p.activeCount as number) === 0)[0],
    );
    expect((await http('GET', `${url}/api/v1/consent_records/${kept}`, { headers: auth(app.token) })).body.status).toBe('expired');
  });
});
