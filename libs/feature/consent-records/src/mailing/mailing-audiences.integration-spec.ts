import { Writable } from 'node:stream';
import { BusConnection } from '@svc/bus';
import { decodeEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { FakeClock } from '@svc/config';
import { startProcess, type RunningProcess } from '@svc/server';
import { DataSource } from 'typeorm';
import { createLogger } from '@svc/telemetry';
import {
  createTestDatabase,
  deleteTestStreams,
  http,
  testEnv,
  uniqueBusPrefix,
  waitFor,
  type HttpResult,
  type TestDatabase,
} from '@svc/testing';
import { consentRecordsFeature } from '..';
import { FakeMailchimp, memberHash } from '../../test/fake-mailchimp';
import { SIGNUP_PURPOSES, auth, decisions, signupFlow, type Json } from '../../test/harness';
import { AudienceFlows } from './audience-flows';
import { MailingAudiencesRepository } from './mailing-audiences.repository';
import { MailingSyncWorker } from './mailing-sync-worker';
import { RecordEventsConsumer } from './record-events.consumer';

/**
 * Spec: Other events (mailing-audience integration: every record event is written to the member's
 * marketing permissions and tags; inbound unsubscribes apply only as withdrawals, after read-back;
 * a subscription made in the mailing tool is never recorded as consent); receipt event_channel
 * `mailing_tool`; Record API, consent status and withdrawal. Issue 6 (mailing-audience rules).
 */
describe('Mailing-audience integration (Mailchimp) over HTTP', () => {
  const API_KEY = 'f00dfeedcafe0123456789abcdef0123-us21';
  const LIST = 'a6b5da1054';
  const clock = new FakeClock('2026-05-01T09:00:00.000Z');
  const logLines: string[] = [];
  const responses: string[] = [];
  const tool = new FakeMailchimp(API_KEY);
  let database: TestDatabase;
  let prefix: string;
  let running: RunningProcess;
  let url: string;
  let app: { id: string; token: string };
  let other: { id: string; token: string };
  let flowId: string;
  let audienceId: string;
  let webhookPath: string;
  let key = 0;

  const call = async (
    method: string,
    path: string,
    options: { token?: string | null; json?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpResult> => {
    const token = options.token === undefined ? app.token : options.token;
    const res = await http(method, `${url}${path}`, {
      headers: { ...(token ? auth(token) : {}), ...options.headers },
      json: options.json,
      raw: options.raw,
    });
    responses.push(res.text);
    return res;
  };
  /** A new active flow of newsletter and offers, of the application `token` names (ours by default). */
  const newFlow = async (token?: string): Promise<string> => {
    const flow = await call('POST', '/api/v1/flows', {
      token,
      json: { ...signupFlow({ purposes: SIGNUP_PURPOSES.slice(0, 2) }), name: 'Another form' },
    });
    expect((await call('POST', `/api/v1/flows/${flow.body.id as string}/activate`, { token })).status).toBe(200);
    return flow.body.id as string;
  };
  const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();
  const inbound = (fields: Record<string, string> | string, path = webhookPath) =>
    call('POST', path, {
      token: null,
      raw: typeof fields === 'string' ? fields : form(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const record = async (email: string, newsletter: 'granted' | 'declined', offers: 'granted' | 'declined'): Promise<string> => {
    key += 1;
    const res = await call('POST', '/api/v1/consent_records', {
      json: {
        flow_id: flowId,
        subject: { email },
        decisions: decisions(newsletter, offers),
        captured_at: '2026-04-30T12:00:00.000Z',
        idempotency_key: `mail-${key}`,
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const syncsOf = async (recordId: string): Promise<Json[]> => {
    const res = await call('GET', `/api/v1/mailing_audiences/${audienceId}/syncs?limit=200`);
    return (res.body.data as Json[]).filter((s) => s.record_id === recordId);
  };
  const inboundEvents = async (): Promise<Json[]> =>
    (await call('GET', `/api/v1/mailing_audiences/${audienceId}/inbound_events?limit=200`)).body.data as Json[];
  const statusOf = async (email: string): Promise<Json[]> =>
    (await call('GET', `/api/v1/applications/${app.id}/consent_status?subject[email]=${encodeURIComponent(email)}`)).body
      .purposes as Json[];
  /** Due retries are read against the fake clock: move it past the first backoff and wake the worker. */
  const advance = (ms: number): void => {
    clock.advance(ms);
    running.app.get(MailingSyncWorker).kick();
  };
  const createBody = (overrides: Json = {}): Json => ({
    provider: 'mailchimp',
    api_base_url: tool.url,
    api_key: API_KEY,
    list_id: LIST,
    flow_id: flowId,
    permissions: [
      { purpose: 'newsletter', marketing_permission_id: 'perm_news' },
      { purpose: 'offers', marketing_permission_id: 'perm_offers' },
    ],
    tags: [{ purpose: 'newsletter', granted: ['newsletter-consent'], declined: ['newsletter-no-consent'] }],
    ...overrides,
  });

  beforeAll(async () => {
    await tool.start();
    database = await createTestDatabase('mailing');
    prefix = uniqueBusPrefix();
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    running = await startProcess({
      features: [decisionGatewayFeature, consentRecordsFeature],
      env: testEnv({ REGION: 'us', DATABASE_URL: database.url, BUS_PREFIX: prefix, PUBLIC_BASE_URL: 'https://us.example.test' }),
      clock,
      logger: createLogger({ service: 'test', region: 'us', level: 'debug', destination }),
    });
    url = running.url;
    const newApp = async (name: string, environment: 'development' | 'production') => {
      const created = await running.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment }));
      return { id: created.application.id, token: created.apiToken };
    };
    app = await newApp('shop', 'development');
    other = await newApp('live shop', 'production');
    const flow = await call('POST', '/api/v1/flows', { json: signupFlow() });
    flowId = flow.body.id as string;
    expect((await call('POST', `/api/v1/flows/${flowId}/activate`)).status).toBeLessThan(300);
    const created = await call('POST', '/api/v1/mailing_audiences', { json: createBody() });
    expect(created.status).toBe(201);
    audienceId = created.body.id as string;
    webhookPath = new URL(created.body.webhook_url as string).pathname;
  });

  afterAll(async () => {
    await running?.close();
    await database?.drop();
    await deleteTestStreams(prefix);
    await tool.close();
  });

  describe('management API', () => {
    it('creates an integration: the API key is never returned, the webhook URL with its secret only once', async () => {
      const created = await call('POST', '/api/v1/mailing_audiences', { json: createBody({ list_id: 'b7c6eb2165' }) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        object: 'mailing_audience',
        application_id: app.id,
        provider: 'mailchimp',
        api_base_url: tool.url,
        list_id: 'b7c6eb2165',
        flow_id: flowId,
        permissions: [
          { purpose: 'newsletter', marketing_permission_id: 'perm_news' },
          { purpose: 'offers', marketing_permission_id: 'perm_offers' },
        ],
        tags: [{ purpose: 'newsletter', granted: ['newsletter-consent'], declined: ['newsletter-no-consent'] }],
      });
      expect(created.body.id).toMatch(/^mla_us_[a-z2-7]{20}$/);
      expect(created.body.webhook_url).toMatch(/^https:\/\/us\.example\.test\/api\/v1\/mailing_audience_webhooks\/mlwh_[0-9A-Za-z]{43}$/);
      expect(created.body).not.toHaveProperty('api_key');
      const read = await call('GET', `/api/v1/mailing_audiences/${created.body.id as string}`);
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('webhook_url');
      expect(read.body).not.toHaveProperty('api_key');
      const list = await call('GET', '/api/v1/mailing_audiences');
      expect((list.body.data as Json[]).map((a) => a.id)).toEqual(expect.arrayContaining([audienceId, created.body.id]));
      expect((await call('DELETE', `/api/v1/mailing_audiences/${created.body.id as string}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/mailing_audiences/${created.body.id as string}`)).status).toBe(404);
      const webhook = new URL(created.body.webhook_url as string).pathname;
      expect((await inbound({ type: 'unsubscribe', 'data[email]': 'x@example.com', 'data[list_id]': 'b7c6eb2165' }, webhook)).status).toBe(
        404,
      );
    });

    it('refuses missing or wrong credentials and answers another application alike an unknown integration', async () => {
      expect((await call('GET', '/api/v1/mailing_audiences', { token: null })).status).toBe(401);
      expect((await call('POST', '/api/v1/mailing_audiences', { token: 'not-a-token', json: createBody() })).status).toBe(401);
      const foreign = await call('GET', `/api/v1/mailing_audiences/${audienceId}`, { token: other.token });
      expect([foreign.status, foreign.body.reason_code]).toEqual([404, 'mailing_audience_not_found']);
      expect((await call('DELETE', `/api/v1/mailing_audiences/${audienceId}`, { token: other.token })).status).toBe(404);
      expect((await call('GET', `/api/v1/mailing_audiences/${audienceId}/syncs`, { token: other.token })).status).toBe(404);
      expect((await call('GET', '/api/v1/mailing_audiences/mla_us_nope')).status).toBe(404);
    });

    it('refuses bad input by name: shape 400, rules 422, duplicates 409', async () => {
      const cases: Array<[Json, number, string | undefined]> = [
        [createBody({ provider: 'sendgrid' }), 422, undefined],
        [createBody({ unknown_field: true }), 400, undefined],
        [createBody({ permissions: [] }), 422, undefined],
        [createBody({ api_key: undefined }), 400, undefined],
        [createBody({ permissions: [{ purpose: 'newsletter' }] }), 400, undefined],
        [createBody({ api_base_url: 'http://mail.example.com/3.0' }), 422, 'mailing_api_base_url_invalid'],
        [createBody({ api_base_url: 'https://user:pw@mail.example.com/3.0' }), 422, 'mailing_api_base_url_invalid'],
        [createBody({ api_base_url: 'not a url' }), 422, 'mailing_api_base_url_invalid'],
        [createBody({ permissions: [{ purpose: 'coupons', marketing_permission_id: 'perm_x' }] }), 422, 'purpose_not_in_flow'],
        [
          createBody({
            permissions: [
              { purpose: 'newsletter', marketing_permission_id: 'a' },
              { purpose: 'newsletter', marketing_permission_id: 'b' },
            ],
            list_id: 'dup1',
          }),
          422,
          'mailing_mapping_duplicate',
        ],
        [createBody({ flow_id: 'flw_us_aaaaaaaaaaaaaaaaaaaa' }), 404, 'flow_not_found'],
        [createBody(), 409, 'mailing_audience_exists'],
      ];
      for (const [body, status, reason] of cases) {
        const res = await call('POST', '/api/v1/mailing_audiences', { json: body });
        expect([res.status, reason ? res.body.reason_code : undefined]).toEqual([status, reason]);
      }
      const malformedJson = await call('POST', '/api/v1/mailing_audiences', {
        raw: '{"provider":',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformedJson.status).toBe(400);
    });

    it('allows plain http to a loopback tool only for development applications', async () => {
      const res = await call('POST', '/api/v1/mailing_audiences', { token: other.token, json: createBody() });
      expect([res.status, res.body.reason_code]).toEqual([422, 'mailing_api_base_url_invalid']);
    });
  });

  describe('address policy: the API key is only ever sent to an address the application may reach', () => {
    it('refuses at creation an api_base_url whose host is, or resolves to, a non-public address, naming the range', async () => {
      const cases: Array<[string, string, string]> = [
        [other.token, 'https://169.254.169.254/3.0', 'metadata'],
        [other.token, 'https://10.0.0.5/3.0', 'private'],
        [other.token, 'https://[fd00:ec2::254]/3.0', 'metadata'],
        [other.token, 'https://[::ffff:a9fe:a9fe]/3.0', 'metadata'],
        [other.token, 'https://0x7f.1/3.0', 'loopback'],
        [other.token, 'https://localhost/3.0', 'loopback'],
        [app.token, 'https://192.168.1.20/3.0', 'private'],
        [app.token, 'http://[::1]:9/3.0', 'ok'],
      ];
      for (const [token, apiBaseUrl, range] of cases) {
        const res = await call('POST', '/api/v1/mailing_audiences', {
          token,
          json: createBody({ api_base_url: apiBaseUrl, list_id: 'policy1' }),
        });
        if (range === 'ok') {
          expect(res.status).toBe(201);
          expect((await call('DELETE', `/api/v1/mailing_audiences/${res.body.id as string}`)).status).toBe(204);
        } else
          expect([apiBaseUrl, res.status, res.body.reason_code, res.body.detail]).toEqual([
            apiBaseUrl,
            422,
            'mailing_api_base_url_address_refused',
            { field: 'api_base_url', range },
          ]);
      }
    });

    it('checks every call again: a production integration whose address turns out loopback fails its write and read-back permanently, nothing sent or withdrawn', async () => {
      const liveFlow = await newFlow(other.token);
      const created = await call('POST', '/api/v1/mailing_audiences', {
        token: other.token,
        json: createBody({ flow_id: liveFlow, api_base_url: 'https://93.184.216.34/3.0', tags: [] }),
      });
      expect(created.status).toBe(201);
      const liveAudience = created.body.id as string;
      // As if the tool's name were rebound to loopback after creation: the stored URL now points at the local stand-in.
      await running.app
        .get(DataSource)
        .query('UPDATE consent_records.mailing_audiences SET api_base_url = $1 WHERE id = $2', [tool.url, liveAudience]);
      const recorded = await call('POST', '/api/v1/consent_records', {
        token: other.token,
        json: {
          flow_id: liveFlow,
          subject: { email: 'rebound@example.com' },
          decisions: decisions('granted', 'granted'),
          captured_at: '2026-04-30T12:00:00.000Z',
          idempotency_key: 'live-1',
        },
      });
      expect(recorded.status).toBe(201);
      const failed = await waitFor(async () => {
        const res = await call('GET', `/api/v1/mailing_audiences/${liveAudience}/syncs?limit=200`, { token: other.token });
        return (res.body.data as Json[]).find((s) => s.record_id === recorded.body.id && s.status === 'failed');
      });
      expect(failed).toMatchObject({ attempts: 1, last_status_code: null, last_error: 'target_address_refused:loopback' });
      const unsubscribed = await inbound(
        { type: 'unsubscribe', 'data[email]': 'rebound@example.com', 'data[list_id]': LIST },
        new URL(created.body.webhook_url as string).pathname,
      );
      expect([unsubscribed.status, unsubscribed.body.outcome]).toEqual([200, 'queued']);
      const readBack = await waitFor(async () => {
        const res = await call('GET', `/api/v1/mailing_audiences/${liveAudience}/inbound_events?limit=200`, { token: other.token });
        return (res.body.data as Json[]).find((e) => e.email === 'rebound@example.com' && e.status !== 'pending');
      });
      expect(readBack).toMatchObject({ status: 'failed', outcome: 'target_address_refused', withdrawn_purposes: [] });
      expect(tool.requestsTo('rebound@example.com')).toEqual([]);
      const purposes = (
        await call('GET', `/api/v1/applications/${other.id}/consent_status?subject[email]=rebound%40example.com`, { token: other.token })
      ).body.purposes as Json[];
      expect(purposes.map((p) => p.status)).toEqual(['granted', 'granted']);
    });
  });

  describe('outbound: record events are written to the member', () => {
    it('writes a recorded consent to the member marketing permissions and tags', async () => {
      const recordId = await record('ada@example.com', 'granted', 'declined');
      const [sync] = await waitFor(async () => {
        const s = await syncsOf(recordId);
        return s[0]?.status === 'written' ? s : undefined;
      });
      expect(sync).toMatchObject({
        object: 'mailing_sync',
        event_type: 'consent.recorded',
        email: 'ada@example.com',
        status: 'written',
        attempts: 1,
        last_error: null,
        permissions: [
          { marketing_permission_id: 'perm_news', enabled: true },
          { marketing_permission_id: 'perm_offers', enabled: false },
        ],
        tags: [
          { name: 'newsletter-no-consent', status: 'inactive' },
          { name: 'newsletter-consent', status: 'active' },
        ],
      });
      const member = tool.member(LIST, 'ada@example.com');
      expect(member?.marketing_permissions).toEqual([
        { marketing_permission_id: 'perm_news', enabled: true },
        { marketing_permission_id: 'perm_offers', enabled: false },
      ]);
      expect(member?.tags.get('newsletter-consent')).toBe('active');
      expect(member?.status).toBe('subscribed');
      const put = tool.requestsTo('ada@example.com').find((r) => r.method === 'PUT');
      expect(put?.path).toBe(`/lists/${LIST}/members/${memberHash('ADA@example.com ')}`);
      expect(put?.body).toMatchObject({ email_address: 'ada@example.com', status_if_new: 'subscribed' });
    });

    it('disables the permission when the purpose is withdrawn', async () => {
      const recordId = await record('grace@example.com', 'granted', 'granted');
      await waitFor(async () => (await syncsOf(recordId)).some((s) => s.status === 'written'));
      const withdrawn = await call('POST', `/api/v1/consent_records/${recordId}/withdrawals`, { json: { purpose: 'newsletter' } });
      expect(withdrawn.status).toBe(201);
      await waitFor(async () =>
        (await syncsOf(recordId)).some((s) => s.event_type === 'consent.purpose_revoked' && s.status === 'written'),
      );
      const member = tool.member(LIST, 'grace@example.com');
      expect(member?.marketing_permissions).toEqual([
        { marketing_permission_id: 'perm_news', enabled: false },
        { marketing_permission_id: 'perm_offers', enabled: true },
      ]);
      expect(member?.tags.get('newsletter-consent')).toBe('inactive');
      expect(member?.tags.get('newsletter-no-consent')).toBe('active');
    });

    it('retries a write the tool answers 500 and writes it on a later attempt', async () => {
      tool.failNext('PUT', 500);
      const recordId = await record('linus@example.com', 'granted', 'declined');
      const failed = await waitFor(async () => (await syncsOf(recordId)).find((s) => s.attempts === 1));
      expect(failed).toMatchObject({ status: 'pending', last_status_code: 500, last_error: 'http_500: Internal Server Error' });
      expect(tool.member(LIST, 'linus@example.com')).toBeUndefined();
      advance(6_000);
      const written = await waitFor(async () => (await syncsOf(recordId)).find((s) => s.status === 'written'));
      expect(written).toMatchObject({ attempts: 2, last_status_code: 204, last_error: null });
      expect(tool.member(LIST, 'linus@example.com')?.marketing_permissions).toEqual([
        { marketing_permission_id: 'perm_news', enabled: true },
        { marketing_permission_id: 'perm_offers', enabled: false },
      ]);
    });

    it('gives up on a 4xx (other than 429) at once and shows it', async () => {
      tool.failNext('PUT', 400);
      const recordId = await record('edsger@example.com', 'granted', 'granted');
      const failed = await waitFor(async () => (await syncsOf(recordId)).find((s) => s.status === 'failed'));
      expect(failed).toMatchObject({ attempts: 1, last_status_code: 400, last_error: 'http_400: Invalid Resource' });
      expect(failed?.completed_at).toEqual(expect.any(String));
    });
  });

  describe('inbound: unsubscribe only withdraws after read-back; subscribe is never consent', () => {
    it('withdraws the whole consent with channel mailing_tool when the read-back confirms the unsubscribe', async () => {
      const recordId = await record('barbara@example.com', 'granted', 'granted');
      await waitFor(async () => (await syncsOf(recordId)).some((s) => s.status === 'written'));
      tool.setMember(LIST, 'barbara@example.com', { status: 'unsubscribed' });
      const res = await inbound({
        type: 'unsubscribe',
        fired_at: '2026-05-01 09:00:00',
        'data[action]': 'unsub',
        'data[reason]': 'manual',
        'data[email]': 'Barbara@example.com',
        'data[list_id]': LIST,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, outcome: 'queued' });
      const event = await waitFor(async () =>
        (await inboundEvents()).find((e) => e.email === 'Barbara@example.com' && e.status !== 'pending'),
      );
      expect(event).toMatchObject({ type: 'unsubscribe', status: 'withdrawn', outcome: 'consent_withdrawn', record_id: recordId });
      expect(tool.requestsTo('barbara@example.com').some((r) => r.method === 'GET')).toBe(true);
      const purposes = await statusOf('barbara@example.com');
      expect(purposes.filter((p) => p.purpose !== 'account')).toEqual([
        expect.objectContaining({ purpose: 'newsletter', status: 'withdrawn', withdrawal_channel: 'mailing_tool' }),
        expect.objectContaining({ purpose: 'offers', status: 'withdrawn', withdrawal_channel: 'mailing_tool' }),
      ]);
      const read = await call('GET', `/api/v1/consent_records/${recordId}`);
      expect(read.body.status).toBe('withdrawn');
      // The withdrawal is itself a record event: the member's permissions are then disabled too.
      await waitFor(async () => (await syncsOf(recordId)).some((s) => s.event_type === 'consent.record_revoked' && s.status === 'written'));
      expect(tool.member(LIST, 'barbara@example.com')?.marketing_permissions.every((p) => !p.enabled)).toBe(true);
    });

    it('changes nothing when the read-back shows the member still subscribed', async () => {
      const recordId = await record('alan@example.com', 'granted', 'granted');
      await waitFor(async () => (await syncsOf(recordId)).some((s) => s.status === 'written'));
      const res = await inbound({ type: 'unsubscribe', 'data[email]': 'alan@example.com', 'data[list_id]': LIST });
      expect([res.status, res.body.outcome]).toEqual([200, 'queued']);
      const event = await waitFor(async () =>
        (await inboundEvents()).find((e) => e.email === 'alan@example.com' && e.status !== 'pending'),
      );
      expect(event).toMatchObject({ status: 'ignored', outcome: 'read_back_still_subscribed', withdrawn_purposes: [] });
      const purposes = await statusOf('alan@example.com');
      expect(purposes.filter((p) => p.purpose !== 'account').map((p) => p.status)).toEqual(['granted', 'granted']);
      expect((await call('GET', `/api/v1/consent_records/${recordId}`)).body.status).toBe('active');
    });

    it('withdraws only the purpose whose mapped permission the read-back shows disabled', async () => {
      const recordId = await record('margaret@example.com', 'granted', 'granted');
      await waitFor(async () => (await syncsOf(recordId)).some((s) => s.status === 'written'));
      tool.setMember(LIST, 'margaret@example.com', {
        status: 'subscribed',
        marketing_permissions: [
          { marketing_permission_id: 'perm_news', enabled: true },
          { marketing_permission_id: 'perm_offers', enabled: false },
        ],
      });
      await inbound({ type: 'unsubscribe', 'data[email]': 'margaret@example.com', 'data[list_id]': LIST });
      const event = await waitFor(async () =>
        (await inboundEvents()).find((e) => e.email === 'margaret@example.com' && e.status !== 'pending'),
      );
      expect(event).toMatchObject({ status: 'withdrawn', outcome: 'purposes_withdrawn', withdrawn_purposes: ['offers'] });
      const purposes = await statusOf('margaret@example.com');
      expect(purposes.filter((p) => p.purpose !== 'account').map((p) => [p.purpose, p.status, p.withdrawal_channel])).toEqual([
        ['newsletter', 'granted', null],
        ['offers', 'withdrawn', 'mailing_tool'],
      ]);
    });

    it('acknowledges a subscribe made in the tool and never records it as consent', async () => {
      const res = await inbound({
        type: 'subscribe',
        fired_at: '2026-05-01 09:00:00',
        'data[email]': 'newcomer@example.com',
        'data[list_id]': LIST,
        'data[merges][EMAIL]': 'newcomer@example.com',
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, outcome: 'ignored' });
      const event = (await inboundEvents()).find((e) => e.email === 'newcomer@example.com');
      expect(event).toMatchObject({ type: 'subscribe', status: 'ignored', outcome: 'subscribe_never_consent', record_id: null });
      expect(await statusOf('newcomer@example.com')).toEqual([]);
      // Nothing was read back or written for the newcomer (earlier tests' syncs may still be landing).
      expect(tool.requestsTo('newcomer@example.com')).toEqual([]);
      expect(logLines.some((l) => l.includes('mailing inbound event ignored') && l.includes('subscribe_never_consent'))).toBe(true);
    });

    it('answers the tool URL check, 404 for an unknown secret, 400 for a malformed post, never 5xx', async () => {
      expect((await call('GET', webhookPath, { token: null })).status).toBe(200);
      expect((await inbound('')).status).toBe(200);
      const unknownSecret = webhookPath.replace(/mlwh_.*/, `mlwh_${'x'.repeat(43)}`);
      expect((await call('GET', unknownSecret, { token: null })).status).toBe(404);
      expect((await inbound({ type: 'unsubscribe', 'data[email]': 'x@example.com', 'data[list_id]': LIST }, unknownSecret)).status).toBe(
        404,
      );
      expect((await inbound({ type: 'unsubscribe' }, '/api/v1/mailing_audience_webhooks/plain')).status).toBe(404);
      const malformed: Array<Record<string, string> | string> = [
        { type: 'unsubscribe', 'data[list_id]': LIST },
        { type: 'unsubscribe', 'data[email]': 'not-an-email', 'data[list_id]': LIST },
        { type: 'unsubscribe', 'data[email]': 'x@example.com' },
        { 'data[email]': 'x@example.com', 'data[list_id]': LIST },
        'type=unsubscribe&type=subscribe&data[email]=x@example.com&data[list_id]=' + LIST,
      ];
      for (const body of malformed) {
        const res = await inbound(body);
        expect([res.status, res.body.reason_code]).toEqual([400, 'mailing_webhook_malformed']);
      }
      const json = await call('POST', webhookPath, { token: null, raw: '{"type":', headers: { 'content-type': 'application/json' } });
      expect(json.status).toBe(400);
      const other = await inbound({ type: 'cleaned', 'data[email]': 'x@example.com', 'data[list_id]': LIST, 'data[reason]': 'hard' });
      expect([other.status, other.body.outcome]).toEqual([200, 'ignored']);
      const otherList = await inbound({ type: 'unsubscribe', 'data[email]': 'x@example.com', 'data[list_id]': 'zz99' });
      expect([otherList.status, otherList.body.outcome]).toEqual([200, 'ignored']);
    });
  });

  describe('which flows have an audience: read once per application, renewed at a connection’s commit', () => {
    const recordOn = async (flow: string, email: string): Promise<string> => {
      key += 1;
      const res = await call('POST', '/api/v1/consent_records', {
        json: {
          flow_id: flow,
          subject: { email },
          decisions: decisions('granted', 'declined'),
          captured_at: '2026-04-30T12:00:00.000Z',
          idempotency_key: `mail-${key}`,
        },
      });
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    /** Resolves once the consumer has handled `count` consent.recorded events of `flow` since the spy began. */
    const handled = async (
      spy: jest.SpyInstance<Promise<void>, Parameters<RecordEventsConsumer['handle']>>,
      flow: string,
      count: number,
    ): Promise<void> => {
      const personalData = running.app.get(BusConnection).personalData;
      const ofFlow = () =>
        spy.mock.calls
          .map((call, i) => ({ call, result: spy.mock.results[i] }))
          .filter(
            ({ call: [type, , event] }) => type === 'consent.recorded' && decodeEvent(type, event.data, personalData).flowId === flow,
          );
      const calls = await waitFor(() => (ofFlow().length >= count ? ofFlow() : undefined));
      await Promise.all(calls.map(({ result }) => result?.value as Promise<void>));
    };
    // The cached answers never age during these tests, so only a commit can renew them.
    let clockOfAnswers: { now: () => number };
    let realNow: () => number;
    beforeEach(() => {
      clockOfAnswers = (running.app.get(AudienceFlows) as unknown as { cache: { now: () => number } }).cache;
      realNow = clockOfAnswers.now;
      clockOfAnswers.now = () => 0;
    });
    afterEach(() => {
      clockOfAnswers.now = realNow;
      jest.restoreAllMocks();
    });

    it('the record events of a flow without an audience cost the consumer no statement each', async () => {
      const flow = await newFlow();
      const repository = running.app.get(MailingAudiencesRepository);
      const consumer = running.app.get(RecordEventsConsumer);
      const handle = jest.spyOn(consumer, 'handle');
      const flowsRead = jest.spyOn(repository, 'flowsWithAudiences');
      const audiencesRead = jest.spyOn(repository, 'audiencesOfFlow');
      for (let i = 0; i < 20; i += 1) await recordOn(flow, `quiet${i}@example.com`);
      await handled(handle, flow, 20);
      // At most one read of the application's flows (none when an earlier test left its answer), none of the audiences.
      expect(flowsRead.mock.calls.length).toBeLessThanOrEqual(1);
      expect(audiencesRead.mock.calls.filter(([, , f]) => f === flow)).toEqual([]);
    });

    it('an audience connected just now receives the records written after its connection commits', async () => {
      const flow = await newFlow();
      const consumer = running.app.get(RecordEventsConsumer);
      const handle = jest.spyOn(consumer, 'handle');
      // The consumer has answered "no audience" for this flow (and keeps that answer) ...
      const before = await recordOn(flow, 'early@example.com');
      await handled(handle, flow, 1);
      // ... when an audience is connected to it, and a record follows at once.
      const created = await call('POST', '/api/v1/mailing_audiences', { json: createBody({ flow_id: flow, list_id: 'c8d7fc3276' }) });
      expect(created.status).toBe(201);
      const after = await recordOn(flow, 'late@example.com');
      const syncs = async () =>
        (await call('GET', `/api/v1/mailing_audiences/${created.body.id as string}/syncs?limit=200`)).body.data as Json[];
      const [sync] = await waitFor(async () => {
        const found = (await syncs()).filter((s) => s.record_id === after);
        return found.length > 0 ? found : undefined;
      });
      expect(sync).toMatchObject({ event_type: 'consent.recorded', email: 'late@example.com' });
      await handled(handle, flow, 2);
      expect((await syncs()).map((s) => s.record_id)).not.toContain(before);

      // Deleted: later records of the flow are no longer queued for it (nor is anything read for them).
      expect((await call('DELETE', `/api/v1/mailing_audiences/${created.body.id as string}`)).status).toBe(204);
      const audiencesRead = jest.spyOn(running.app.get(MailingAudiencesRepository), 'audiencesOfFlow');
      await recordOn(flow, 'gone@example.com');
      await handled(handle, flow, 3);
      expect(audiencesRead.mock.calls.filter(([, , f]) => f === flow)).toEqual([]);
    });

    it("another process's answer, read before a connection, has expired when the connection is answered", async () => {
      const flow = await newFlow();
      // Another process of the region: its own answers, aging in real time, never told of the connection.
      const otherProcess = new AudienceFlows(running.app.get(MailingAudiencesRepository));
      expect(await otherProcess.connected(app.id, flow)).toBe(false);
      const created = await call('POST', '/api/v1/mailing_audiences', { json: createBody({ flow_id: flow, list_id: 'e1f2a3b4c5' }) });
      expect(created.status).toBe(201);
      // So a record written after this answer is queued for the audience, whichever process handles its event.
      expect(await otherProcess.connected(app.id, flow)).toBe(true);
      expect((await call('DELETE', `/api/v1/mailing_audiences/${created.body.id as string}`)).status).toBe(204);
    });
  });

  it('never shows the API key in a response or a log line', () => {
    expect(responses.length).toBeGreaterThan(20);
    expect(logLines.length).toBeGreaterThan(10);
    for (const text of [...responses, ...logLines]) expect(text).not.toContain(API_KEY);
    expect(tool.requests.every((r) => r.authorization === `Basic ${Buffer.from(`svc:${API_KEY}`).toString('base64')}`)).toBe(true);
  });
});
