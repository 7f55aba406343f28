import { BusConnection } from '@svc/bus';
import { FakeClock } from '@svc/config';
import { decodeEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { startProcess, type RunningProcess } from '@svc/server';
import { createTestDatabase, deleteTestStreams, http, testEnv, uniqueBusPrefix, waitFor, type TestDatabase } from '@svc/testing';
import { consentRecordsFeature } from '../consent-records.feature';
import { FlowsRepository } from './flows.repository';

/** Spec: Resources — Flow; States — Flow; Events — flow.activated. Issue 4, Deliver 1. */
describe('flows (consent-records) over HTTP', () => {
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;
  let url: string;
  let token: string;
  let otherToken: string;
  let publishableKey: string;
  let applicationId: string;
  const events: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const auth = (t: string) => ({ authorization: `Bearer ${t}` });

  const body = {
    name: 'Newsletter and analytics',
    locale: 'en-GB',
    presentation: { title: 'Stay in touch', description: 'How we use your email' },
    policy_url: 'https://example.com/privacy',
    purposes: [
      { key: 'newsletter', label: 'Newsletter', description: 'Monthly email', mechanism: 'consent', required: false },
      { key: 'service', label: 'Service emails', mechanism: 'contract', required: true },
    ],
    data_fields: [{ key: 'email', label: 'Email address', required: true }],
    purpose_of_use: 'Sending the newsletter',
    retention_period: 'P2Y',
    revocation_policy: 'any_time',
    consent_path: 'standard',
    requirements: [],
    consent_duration: 'P1Y',
  };

  beforeAll(async () => {
    database = await createTestDatabase('flows');
    prefix = uniqueBusPrefix();
    running = await startProcess({
      features: [decisionGatewayFeature, consentRecordsFeature],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: 'https://us.example.test' }),
      clock: new FakeClock('2026-03-01T10:00:00.000Z'),
    });
    url = running.url;
    const create = running.app.get(CreateApplication);
    const app = await create.execute(CreateApplicationCommand.create({ name: 'flows', environment: 'development' }));
    token = app.apiToken;
    applicationId = app.application.id;
    publishableKey = app.publishableKey;
    otherToken = (await create.execute(CreateApplicationCommand.create({ name: 'other', environment: 'development' }))).apiToken;
    const bus = running.app.get(BusConnection);
    const subscription = bus.nc.subscribe(`${prefix}.us.evt.flow.>`);
    void (async () => {
      for await (const msg of subscription) {
        const type = msg.headers?.get('Svc-Event-Type') ?? '';
        events.push({ type, payload: decodeEvent(type, msg.data) as Record<string, unknown> });
      }
    })();
  });

  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  async function createFlow(overrides: Record<string, unknown> = {}) {
    const res = await http('POST', `${url}/api/v1/flows`, { headers: auth(token), json: { ...body, ...overrides } });
    expect(res.status).toBe(201);
    return res.body as Record<string, unknown> & { id: string };
  }

  it('creates a draft version 1 with a flw_us_ id, every declared field, no flow URL yet', async () => {
    const flow = await createFlow();
    expect(flow.id).toMatch(/^flw_us_[a-z2-7]{20}$/);
    expect(flow).toMatchObject({
      object: 'flow',
      status: 'draft',
      version: 1,
      version_status: 'draft',
      active_version: null,
      flow_url: null,
      name: body.name,
      locale: 'en-GB',
      presentation: body.presentation,
      policy_url: body.policy_url,
      purposes: [
        { key: 'newsletter', label: 'Newsletter', description: 'Monthly email', mechanism: 'consent', required: false },
        { key: 'service', label: 'Service emails', description: '', mechanism: 'contract', required: true },
      ],
      data_fields: body.data_fields,
      purpose_of_use: body.purpose_of_use,
      retention_period: 'P2Y',
      revocation_policy: 'any_time',
      consent_path: 'standard',
      requirements: [],
      consent_duration: 'P1Y',
      capturable_in_own_form: true,
    });
  });

  it('computes capturable_in_own_form by the spec rule: a decision only, and a consent duration', async () => {
    expect((await createFlow({ consent_duration: undefined })).capturable_in_own_form).toBe(false);
    expect((await createFlow({ requirements: ['identity_verification'] })).capturable_in_own_form).toBe(false);
    expect((await createFlow({ requirements: ['bank_connection'] })).capturable_in_own_form).toBe(false);
    expect((await createFlow({ consent_path: 'informed' })).capturable_in_own_form).toBe(false);
  });

  it('activates: active, flow URL, flow.activated published; then edits open version 2 and keep version 1 intact', async () => {
    const flow = await createFlow();
    const activated = await http('POST', `${url}/api/v1/flows/${flow.id}/activate`, { headers: auth(token) });
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({
      status: 'active',
      version: 1,
      version_status: 'active',
      active_version: 1,
      flow_url: `https://us.example.test/accord/${flow.id}`,
    });
    const event = await waitFor(() => events.find((e) => e.payload.flowId === flow.id));
    expect(event.type).toBe('flow.activated');
    expect(event.payload).toMatchObject({ flowId: flow.id, version: 1, previousVersion: 0, capturableInOwnForm: true });
    expect((event.payload.meta as { applicationId: string }).applicationId).toMatch(/^tp_us_/);

    const again = await http('POST', `${url}/api/v1/flows/${flow.id}/activate`, { headers: auth(token) });
    expect(again.status).toBe(200);

    const changed = await http('PATCH', `${url}/api/v1/flows/${flow.id}`, {
      headers: auth(token),
      json: { presentation: { title: 'New wording' } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      status: 'active',
      version: 2,
      version_status: 'draft',
      active_version: 1,
      latest_version: 2,
      presentation: { title: 'New wording', description: '' },
    });
    const v1 = await http('GET', `${url}/api/v1/flows/${flow.id}/versions/1`, { headers: auth(token) });
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({ version: 1, version_status: 'active', presentation: body.presentation });

    const second = await http('POST', `${url}/api/v1/flows/${flow.id}/activate`, { headers: auth(token) });
    expect(second.body).toMatchObject({ version: 2, version_status: 'active', active_version: 2 });
    const superseded = await http('GET', `${url}/api/v1/flows/${flow.id}/versions/1`, { headers: auth(token) });
    expect(superseded.body).toMatchObject({ version: 1, version_status: 'superseded', presentation: body.presentation });
    await waitFor(() => events.find((e) => e.payload.flowId === flow.id && e.payload.version === 2 && e.payload.previousVersion === 1));
  });

  it('reads a version for its terms once it is past its draft, and a draft every time', async () => {
    const flow = await createFlow();
    const flows = running.app.get(FlowsRepository);
    const reads = jest.spyOn(flows, 'find');
    try {
      expect((await flows.findSettled(applicationId, flow.id, 1))?.terms.presentation.title).toBe(body.presentation.title);
      const edited = await http('PATCH', `${url}/api/v1/flows/${flow.id}`, {
        headers: auth(token),
        json: { presentation: { title: 'Edited' } },
      });
      expect(edited.status).toBe(200);
      expect((await flows.findSettled(applicationId, flow.id, 1))?.terms.presentation.title).toBe('Edited');
      expect((await http('POST', `${url}/api/v1/flows/${flow.id}/activate`, { headers: auth(token) })).status).toBe(200);
      reads.mockClear();
      expect((await flows.findSettled(applicationId, flow.id, 1))?.status).toBe('active');
      expect((await flows.findSettled(applicationId, flow.id, 1))?.terms.presentation.title).toBe('Edited');
      expect(reads).toHaveBeenCalledTimes(1);
      expect(await flows.findSettled(applicationId, flow.id, 7)).toBeUndefined();
    } finally {
      reads.mockRestore();
    }
  });

  it('edits a draft in place without opening a version', async () => {
    const flow = await createFlow();
    const res = await http('PATCH', `${url}/api/v1/flows/${flow.id}`, {
      headers: auth(token),
      json: { name: 'Renamed', requirements: ['data_collection'] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ version: 1, latest_version: 1, status: 'draft', name: 'Renamed', capturable_in_own_form: false });
  });

  it("lists the application's flows with cursor pagination, never another application's", async () => {
    const first = await http<{ data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null }>(
      'GET',
      `${url}/api/v1/flows?limit=2`,
      { headers: auth(token) },
    );
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await http<{ data: Array<{ id: string }> }>('GET', `${url}/api/v1/flows?limit=2&cursor=${first.body.next_cursor}`, {
      headers: auth(token),
    });
    expect(second.body.data[0]?.id).not.toBe(first.body.data[1]?.id);
    const other = await http<{ data: unknown[] }>('GET', `${url}/api/v1/flows`, { headers: auth(otherToken) });
    expect(other.body.data).toEqual([]);
  });

  it('answers 404 flow_not_found for an unknown, malformed or foreign flow id alike', async () => {
    const flow = await createFlow();
    for (const [id, t] of [
      ['flw_us_abcdefghijklmnopqrst', token],
      ['nope', token],
      [flow.id, otherToken],
    ] as const) {
      for (const [method, path] of [
        ['GET', ''],
        ['PATCH', ''],
        ['POST', '/activate'],
      ] as const) {
        const res = await http(method, `${url}/api/v1/flows/${id}${path}`, {
          headers: auth(t),
          ...(method === 'PATCH' ? { json: { name: 'x' } } : {}),
        });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: 'Flow not found', reason_code: 'flow_not_found', detail: { flow_id: id } });
      }
    }
    const version = await http('GET', `${url}/api/v1/flows/${flow.id}/versions/7`, { headers: auth(token) });
    expect(version.status).toBe(404);
    expect(version.body.reason_code).toBe('flow_version_not_found');
    const badVersion = await http('GET', `${url}/api/v1/flows/${flow.id}/versions/x1`, { headers: auth(token) });
    expect(badVersion.status).toBe(404);
  });

  describe('bad input never answers 5xx', () => {
    it.each([
      ['an unknown field', { ...body, colour: 'red' }, 400, 'invalid_request'],
      ['a missing name', { ...body, name: undefined }, 400, 'invalid_request'],
      ['a wrong type', { ...body, purposes: 'all' }, 400, 'invalid_request'],
      ['an unknown nested field', { ...body, purposes: [{ key: 'a', label: 'A', extra: 1 }] }, 400, 'invalid_request'],
      ['no purposes', { ...body, purposes: [] }, 422, 'validation_failed'],
      ['a bad mechanism', { ...body, purposes: [{ key: 'a', label: 'A', mechanism: 'vibes' }] }, 422, 'validation_failed'],
      ['a bad purpose key', { ...body, purposes: [{ key: 'Bad Key', label: 'A' }] }, 422, 'validation_failed'],
      ['a bad duration', { ...body, consent_duration: '1 year' }, 422, 'validation_failed'],
      ['a zero duration', { ...body, consent_duration: 'P0D' }, 422, 'flow_duration_invalid'],
      ['a bad locale', { ...body, locale: 'English' }, 422, 'validation_failed'],
      ['an unknown requirement', { ...body, requirements: ['dna_sample'] }, 422, 'validation_failed'],
      [
        'a duplicate purpose key',
        {
          ...body,
          purposes: [
            { key: 'a', label: 'A' },
            { key: 'a', label: 'B' },
          ],
        },
        422,
        'flow_duplicate_key',
      ],
      ['a non-URL policy', { ...body, policy_url: 'javascript:alert(1)' }, 422, 'validation_failed'],
    ])('refuses %s', async (_case, json, status, reason) => {
      const res = await http('POST', `${url}/api/v1/flows`, { headers: auth(token), json });
      expect(res.status).toBe(status);
      expect(res.body.reason_code).toBe(reason);
    });

    it('refuses malformed JSON (400), an oversized body (400) and a wrong-type PATCH (400)', async () => {
      const malformed = await http('POST', `${url}/api/v1/flows`, {
        headers: { ...auth(token), 'content-type': 'application/json' },
        raw: '{"name":',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body.reason_code).toBe('malformed_json');
      const huge = await http('POST', `${url}/api/v1/flows`, {
        headers: auth(token),
        json: { ...body, purpose_of_use: 'x'.repeat(1_100_000) },
      });
      expect(huge.status).toBe(413);
      expect(huge.body.reason_code).toBe('payload_too_large');
      const flow = await createFlow();
      const patch = await http('PATCH', `${url}/api/v1/flows/${flow.id}`, { headers: auth(token), json: { locale: 7 } });
      expect(patch.status).toBe(400);
    });

    it('refuses missing credentials (401) and a publishable key (403)', async () => {
      const none = await http('POST', `${url}/api/v1/flows`, { json: body });
      expect(none.status).toBe(401);
      expect(none.body.reason_code).toBe('unauthenticated');
      const pk = await http('GET', `${url}/api/v1/flows`, { headers: { 'x-publishable-key': publishableKey } });
      expect(pk.status).toBe(403);
      expect(pk.body.reason_code).toBe('publishable_key_not_allowed');
    });
  });
});
