import { FakeClock } from '@svc/config';
import { http, waitFor } from '@svc/testing';
import { RecordsHarness, auth, decisions, type Json, type TestApp } from '../../test/harness';

const ORIGIN = 'http://localhost:4556';
type Decision = 'granted' | 'declined';

/**
 * Spec: Captured consent and receipts (later-record rule, frozen records), Consent record (Record
 * API, import, capture commit). Issue 6 item 1: the rule is written once, so each entry point —
 * Record API, capture commit, import — gives the same outcome: a later record for the same person
 * and flow is a new record that withdraws (channel newer_record) the purposes that moved from
 * granted to declined, and supersedes the earlier one.
 */
describe('the later-record rule through every entry point', () => {
  const clock = new FakeClock('2026-08-01T08:00:00.000Z');
  const harness = new RecordsHarness(clock);
  let url: string;
  let app: TestApp;
  let flowId: string;
  let key = 0;

  const get = (path: string) => http('GET', `${url}${path}`, { headers: auth(app.token) });
  const person = (name: string) => ({ email: `${name}@example.com`, external_id: name });

  /** Writes one record through an entry point and answers its id. */
  type EntryPoint = (name: string, newsletter: Decision, offers: Decision) => Promise<string>;

  const viaRecordApi: EntryPoint = async (name, newsletter, offers) => {
    const res = await http('POST', `${url}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: person(name),
        decisions: decisions(newsletter, offers),
        captured_at: clock.now().toISOString(),
        idempotency_key: `api-${++key}`,
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  const viaCapture: EntryPoint = async (name, newsletter, offers) => {
    const field = (purpose: string, decision: Decision) => ({
      purpose,
      control: 'checkbox',
      checked: decision === 'granted',
      default_checked: false,
      required: false,
    });
    const captured = await http('POST', `${url}/capture/v1/captures`, {
      headers: { 'x-publishable-key': app.pk, origin: ORIGIN },
      json: { flow_id: flowId, fields: [field('newsletter', newsletter), field('offers', offers)] },
    });
    expect(captured.status).toBe(201);
    const committed = await http('POST', `${url}/api/v1/decisions/${captured.body.capture_token as string}/authorize`, {
      headers: auth(app.token),
      json: { subject: person(name) },
    });
    expect(committed.status).toBe(200);
    return committed.body.record_id as string;
  };

  const viaImport: EntryPoint = async (name, newsletter, offers) => {
    const res = await http('POST', `${url}/api/v1/consent_records/imports`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        records: [
          {
            subject: person(name),
            decisions: decisions(newsletter, offers),
            captured_at: clock.now().toISOString(),
            idempotency_key: `import-${++key}`,
          },
        ],
      },
    });
    expect(res.status).toBe(202);
    const done = await waitFor(async () => {
      const r = await get(`/api/v1/consent_records/imports/${res.body.id as string}`);
      return r.body.status === 'completed' ? r : undefined;
    }, 30_000);
    const [row] = (done.body.rows as Json).data as Json[];
    expect(row).toMatchObject({ outcome: 'created' });
    return row!.record_id as string;
  };

  /** What a person's first and later record look like afterwards, without ids and times. */
  async function outcome(name: string, firstId: string, laterId: string): Promise<Json> {
    const first = (await get(`/api/v1/consent_records/${firstId}`)).body;
    const later = (await get(`/api/v1/consent_records/${laterId}`)).body;
    const revoked = await waitFor(() => {
      const events = harness.eventsOf('consent.purpose_revoked', (p) => p.recordId === firstId);
      return events.length > 0 ? events : undefined;
    });
    const recorded = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === laterId)[0]);
    const status = (await get(`/api/v1/applications/${app.id}/consent_status?subject[external_id]=${name}`)).body;
    return {
      later: {
        status: later.status,
        previous_is_first: later.previous_record_id === firstId,
        withdrawn_purposes: later.withdrawn_purposes,
      },
      first: { status: first.status, purposes: (first.purposes as Json[]).map((p) => [p.purpose, p.status, p.withdrawal_channel]) },
      purpose_revoked: revoked.map((e) => [e.purpose, e.channel, e.subjectExternalId]),
      recorded: { previousIsFirst: recorded.previousRecordId === firstId, withdrawnPurposes: recorded.withdrawnPurposes },
      consent_status: (status.purposes as Json[]).map((p) => [p.purpose, p.status, p.record_id === laterId]),
    };
  }

  const expected = (name: string): Json => ({
    later: { status: 'active', previous_is_first: true, withdrawn_purposes: ['newsletter'] },
    first: {
      status: 'superseded',
      purposes: [
        ['newsletter', 'withdrawn', 'newer_record'],
        ['offers', 'granted', null],
      ],
    },
    purpose_revoked: [['newsletter', 'newer_record', name]],
    recorded: { previousIsFirst: true, withdrawnPurposes: ['newsletter'] },
    consent_status: [
      ['newsletter', 'declined', true],
      ['offers', 'granted', true],
    ],
  });

  beforeAll(async () => {
    await harness.start('later-record');
    url = harness.url;
    app = await harness.newApp('shop', ORIGIN);
    flowId = await harness.flow(app.token);
  });
  afterAll(() => harness.close());

  it('behaves identically through the Record API, a capture commit and an import', async () => {
    const entryPoints: Array<[string, EntryPoint]> = [
      ['record-api', viaRecordApi],
      ['capture', viaCapture],
      ['import', viaImport],
    ];
    const outcomes: Json[] = [];
    for (const [name, write] of entryPoints) {
      const first = await write(name, 'granted', 'granted');
      clock.advance(60_000);
      const later = await write(name, 'declined', 'granted');
      clock.advance(60_000);
      const seen = await outcome(name, first, later);
      expect(seen).toEqual(expected(name));
      outcomes.push({ ...seen, purpose_revoked: (seen.purpose_revoked as unknown[][]).map(([purpose, channel]) => [purpose, channel]) });
    }
    expect(outcomes[1]).toEqual(outcomes[0]);
    expect(outcomes[2]).toEqual(outcomes[0]);
  });

  it('chains one person across entry points: each later record supersedes the one before, whoever wrote it', async () => {
    const api = await viaRecordApi('mixed', 'granted', 'granted');
    clock.advance(60_000);
    const capture = await viaCapture('mixed', 'declined', 'granted');
    clock.advance(60_000);
    const imported = await viaImport('mixed', 'declined', 'declined');
    clock.advance(60_000);
    const back = await viaRecordApi('mixed', 'granted', 'granted');
    const view = async (id: string) => (await get(`/api/v1/consent_records/${id}`)).body;
    expect(await view(capture)).toMatchObject({ previous_record_id: api, withdrawn_purposes: ['newsletter'], status: 'superseded' });
    expect(await view(imported)).toMatchObject({ previous_record_id: capture, withdrawn_purposes: ['offers'], status: 'superseded' });
    // Granting again is a new record; nothing is withdrawn by it.
    expect(await view(back)).toMatchObject({ previous_record_id: imported, withdrawn_purposes: [], status: 'active' });
    expect(((await view(api)).purposes as Json[]).map((p) => [p.purpose, p.status])).toEqual([
      ['newsletter', 'withdrawn'],
      ['offers', 'granted'],
    ]);
  });

  it('carries the Record API notice digest into consent.recorded, and returns the original record to a retried idempotency key through the API and an import alike', async () => {
    const body = {
      flow_id: flowId,
      subject: person('retry'),
      decisions: decisions('granted', 'declined'),
      captured_at: clock.now().toISOString(),
      idempotency_key: 'retry-1',
      notice_digest: 'sha256:notice',
    };
    const created = await http('POST', `${url}/api/v1/consent_records`, { headers: auth(app.token), json: body });
    expect(created.status).toBe(201);
    const event = await waitFor(() => harness.eventsOf('consent.recorded', (p) => p.recordId === created.body.id)[0]);
    expect(event).toMatchObject({ noticeDigest: 'sha256:notice', renderingEvidenceDigest: '', collectionPlatform: '' });
    clock.advance(1_000);
    const replayed = await http('POST', `${url}/api/v1/consent_records`, { headers: auth(app.token), json: body });
    expect([replayed.status, replayed.body.id]).toEqual([200, created.body.id]);
    const { flow_id: _flow, ...row } = body;
    const res = await http('POST', `${url}/api/v1/consent_records/imports`, {
      headers: auth(app.token),
      json: { flow_id: flowId, records: [row] },
    });
    const done = await waitFor(async () => {
      const r = await get(`/api/v1/consent_records/imports/${res.body.id as string}`);
      return r.body.status === 'completed' ? r : undefined;
    }, 30_000);
    expect((done.body.rows as Json).data).toEqual([expect.objectContaining({ outcome: 'duplicate', record_id: created.body.id })]);
    expect(harness.eventsOf('consent.recorded', (p) => (p.subjectExternalId as string) === 'retry')).toHaveLength(1);
  });
});
