import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac, randomUUID } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventPublisher, type DeliveredEvent } from '@svc/bus';
import { FakeClock, type Environment } from '@svc/config';
import { KeyEncryption } from '@svc/crypto';
import { ConsentGrantedSchema, EventMetaSchema, WebhookDeliveryFailedSchema, eventSubject } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { WebhookVerificationError, verifyWebhook } from '@svc/sdk-webhooks';
import { startProcess, type RunningProcess } from '@svc/server';
import {
  createTestDatabase,
  deleteTestStreams,
  http,
  testEnv,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  waitFor,
  type TestDatabase,
  LoopbackReceiver,
  type ReceivedWebhook,
} from '@svc/testing';
import { DataSource } from 'typeorm';
import {
  DeliveriesRepository,
  DeliveryWorker,
  EventIntake,
  INTAKE_CONSUMER,
  SubscribedApplications,
  SubscriptionsRepository,
  newDeliveryId,
  webhookDispatcherFeature,
} from '../src';

/** An application of the test, with its API token. */
interface TestApp {
  id: string;
  token: string;
  publishableKey: string;
}

/**
 * Boots a dispatcher process (webhook-dispatcher with decision-gateway, which answers the API-token
 * lookups) on the given database and bus prefix, driven by the given clock.
 */
async function startDispatcher(env: Environment, clock: FakeClock): Promise<RunningProcess> {
  return startProcess({ features: [decisionGatewayFeature, webhookDispatcherFeature], env, clock });
}

async function createApp(process: RunningProcess, environment: 'development' | 'production', name = 'hooks'): Promise<TestApp> {
  const created = await process.app.get(CreateApplication).execute(CreateApplicationCommand.create({ name, environment }));
  return { id: created.application.id, token: created.apiToken, publishableKey: created.publishableKey };
}

/** Publishes a session's `consent_session.granted` event (webhook `consent.granted`) for the application straight onto the region's bus; returns its id. */
async function publishConsentGranted(
  process: RunningProcess,
  clock: FakeClock,
  applicationId: string,
  userIdentifier = 'user-1',
): Promise<string> {
  const bus = process.app.get(BusConnection);
  const id = randomUUID();
  const message = create(ConsentGrantedSchema, {
    meta: create(EventMetaSchema, {
      eventId: id,
      eventType: 'consent_session.granted',
      schemaVersion: 1,
      region: bus.region,
      applicationId,
      occurredAt: timestampFromDate(clock.now()),
    }),
    sessionToken: 'dts_testsessiontoken',
    flowId: 'flw_us_abcdefghijklmnopqrst',
    flowVersion: 1,
    consentToken: 'consent-token-1',
    userIdentifier,
    purposes: ['marketing'],
  });
  await new EventPublisher(bus).publish({
    id,
    eventType: 'consent_session.granted',
    subject: eventSubject(bus.prefix, bus.region, 'consent_session.granted'),
    data: toBinary(ConsentGrantedSchema, message),
  });
  return id;
}

/** Moves the fake clock and wakes the process's delivery worker. */
function advance(process: RunningProcess, clock: FakeClock, ms: number): void {
  clock.advance(ms);
  process.app.get(DeliveryWorker).kick();
}

function db(process: RunningProcess): DataSource {
  return process.app.get(DataSource);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

jest.setTimeout(60_000);

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** Spec: Events → Webhooks (event names, delivery rules 1–2), Limits (webhook rows); issue 8. */
describe('webhook-dispatcher over HTTP with a loopback receiver and a fake clock', () => {
  let database: TestDatabase;
  let prefix: string;
  let env: Environment;
  let clock: FakeClock;
  let proc: RunningProcess;
  let base: string;
  const receiver = new LoopbackReceiver();
  const failedEvents: Array<ReturnType<typeof decodeFailed>> = [];

  const decodeFailed = (data: Uint8Array) => fromBinary(WebhookDeliveryFailedSchema, data);
  const auth = (app: TestApp) => ({ authorization: `Bearer ${app.token}` });
  const subsUrl = (app: TestApp) => `${base}/api/v1/applications/${app.id}/webhook_subscriptions`;

  async function subscribe(app: TestApp, path: string, events: string[] = ['consent.granted']): Promise<{ id: string; secret: string }> {
    const res = await http('POST', subsUrl(app), { headers: auth(app), json: { url: receiver.url(path), events } });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, secret: res.body.secret as string };
  }

  async function deliveries(app: TestApp, subscriptionId: string): Promise<Array<Record<string, unknown>>> {
    const res = await http<{ data: Array<Record<string, unknown>> }>('GET', `${subsUrl(app)}/${subscriptionId}/deliveries?limit=200`, {
      headers: auth(app),
    });
    expect(res.status).toBe(200);
    return res.body.data;
  }

  async function subscription(app: TestApp, id: string): Promise<Record<string, unknown>> {
    const res = await http('GET', `${subsUrl(app)}/${id}`, { headers: auth(app) });
    expect(res.status).toBe(200);
    return res.body;
  }

  /** Waits until `path` has received `count` requests, and returns them. */
  const received = (path: string, count: number) => waitFor(() => (receiver.on(path).length >= count ? receiver.on(path) : undefined));

  /** Waits until the newest delivery of the subscription shows `attempts` recorded attempts. */
  const recorded = (app: TestApp, id: string, attempts: number) =>
    waitFor(async () => {
      const [latest] = await deliveries(app, id);
      return latest && (latest.attempts as unknown[]).length >= attempts ? latest : undefined;
    });

  function hmac(secret: string, request: ReceivedWebhook): string {
    return createHmac('sha256', secret)
      .update(`${String(request.headers['x-svc-timestamp'])}.${request.rawBody}`)
      .digest('hex');
  }

  beforeAll(async () => {
    database = await createTestDatabase('webhooks');
    prefix = uniqueBusPrefix();
    clock = new FakeClock('2026-11-22T12:00:00.000Z');
    env = testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      WEBHOOK_POLL_MS: '20',
      WEBHOOK_MAX_SUBSCRIPTIONS: '3',
    });
    await receiver.start();
    proc = await startDispatcher(env, clock);
    base = proc.url;
    const bus = proc.app.get(BusConnection);
    const sub = bus.nc.subscribe(eventSubject(prefix, 'us', 'webhook.delivery_failed'));
    void (async () => {
      for await (const msg of sub) failedEvents.push(decodeFailed(msg.data));
    })();
  });

  afterAll(async () => {
    await proc?.close();
    await receiver.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  describe('subscriptions API', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await createApp(proc, 'development');
    });

    it('creates a subscription, showing the whsec_ secret once and never again', async () => {
      const res = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'http://localhost:4000/hook', events: ['consent.granted', 'approval.denied', 'consent.granted'] },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        object: 'webhook_subscription',
        application_id: app.id,
        url: 'http://localhost:4000/hook',
        events: ['consent.granted', 'approval.denied'],
        status: 'enabled',
        disabled_reason: null,
        consecutive_failures: 0,
        previous_secret_expires_at: null,
      });
      expect(res.body.id).toMatch(/^whsub_[a-z2-7]{20}$/);
      expect(res.body.secret).toMatch(/^whsec_[0-9A-Za-z+/]{43}=$/);
      expect(res.body.signature_formats).toEqual(['svc']);
      const got = await http('GET', `${subsUrl(app)}/${res.body.id as string}`, { headers: auth(app) });
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty('secret');
      expect(got.text).not.toContain(res.body.secret as string);
      const [row] = await db(proc).query('SELECT secret_enc FROM webhooks.subscriptions WHERE id = $1', [res.body.id]);
      expect(Buffer.from(row.secret_enc as Buffer).toString('latin1')).not.toContain(res.body.secret as string);
    });

    it('lists with cursor pagination, never truncating, and deletes', async () => {
      await http('POST', subsUrl(app), { headers: auth(app), json: { url: 'https://hooks.example.com/b', events: ['flow.activated'] } });
      const first = await http<{ data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null }>(
        'GET',
        `${subsUrl(app)}?limit=1`,
        { headers: auth(app) },
      );
      expect(first.status).toBe(200);
      expect(first.body.has_more).toBe(true);
      const second = await http<{ data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null }>(
        'GET',
        `${subsUrl(app)}?limit=1&cursor=${first.body.next_cursor!}`,
        {
          headers: auth(app),
        },
      );
      expect(second.body.data).toHaveLength(1);
      expect(second.body.data[0]!.id).not.toBe(first.body.data[0]!.id);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      const removed = await http('DELETE', `${subsUrl(app)}/${second.body.data[0]!.id}`, { headers: auth(app) });
      expect(removed.status).toBe(204);
      const gone = await http('GET', `${subsUrl(app)}/${second.body.data[0]!.id}`, { headers: auth(app) });
      expect(gone.status).toBe(404);
      expect(gone.body.reason_code).toBe('webhook_subscription_not_found');
    });

    it('caps subscriptions per application (409 webhook_subscription_limit_reached)', async () => {
      const capped = await createApp(proc, 'development', 'capped');
      for (let i = 0; i < 3; i += 1) {
        const ok = await http('POST', subsUrl(capped), {
          headers: auth(capped),
          json: { url: `https://hooks.example.com/${i}`, events: ['flow.activated'] },
        });
        expect(ok.status).toBe(201);
      }
      const res = await http('POST', subsUrl(capped), {
        headers: auth(capped),
        json: { url: 'https://hooks.example.com/4', events: ['flow.activated'] },
      });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ reason_code: 'webhook_subscription_limit_reached', detail: { limit: 3 } });
    });

    it('requires https for production applications, and refuses http to a non-loopback host in development', async () => {
      const prod = await createApp(proc, 'production', 'prod');
      for (const url of ['http://localhost:4000/hook', 'http://127.0.0.1:4000/hook', 'http://hooks.example.com/']) {
        const res = await http('POST', subsUrl(prod), { headers: auth(prod), json: { url, events: ['consent.granted'] } });
        expect(res.status).toBe(422);
        expect(res.body.reason_code).toBe('webhook_url_requires_https');
      }
      const ok = await http('POST', subsUrl(prod), {
        headers: auth(prod),
        json: { url: 'https://hooks.example.com/', events: ['consent.granted'] },
      });
      expect(ok.status).toBe(201);
      const dev = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'http://hooks.example.com/', events: ['consent.granted'] },
      });
      expect(dev.status).toBe(422);
      expect(dev.body.reason_code).toBe('webhook_url_requires_https');
    });

    it('refuses endpoints at non-public addresses, literal or resolved, naming the url field (loopback only for development)', async () => {
      const prod = await createApp(proc, 'production', 'ssrf-prod');
      const refused: Array<[string, string]> = [
        ['https://localhost/hook', 'loopback'],
        ['https://127.0.0.1:8443/hook', 'loopback'],
        ['https://2130706433/hook', 'loopback'],
        ['https://10.0.0.8/hook', 'private'],
        ['https://192.168.10.1/hook', 'private'],
        ['https://169.254.169.254/latest/meta-data/', 'metadata'],
        ['https://100.64.1.1/hook', 'carrier_grade_nat'],
        ['https://[::1]/hook', 'loopback'],
        ['https://[::ffff:169.254.169.254]/hook', 'metadata'],
        ['https://[fd00::5]/hook', 'unique_local'],
        ['https://[fe80::1]/hook', 'link_local'],
        ['https://0.0.0.0/hook', 'unspecified'],
      ];
      for (const [url, range] of refused) {
        const res = await http('POST', subsUrl(prod), { headers: auth(prod), json: { url, events: ['consent.granted'] } });
        expect({ url, status: res.status, body: res.body }).toMatchObject({
          url,
          status: 422,
          body: { reason_code: 'webhook_url_address_refused', detail: { field: 'url', range } },
        });
      }
      const devRefused = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'https://192.168.10.1/hook', events: ['consent.granted'] },
      });
      expect(devRefused.status).toBe(422);
      expect(devRefused.body).toMatchObject({ reason_code: 'webhook_url_address_refused', detail: { field: 'url', range: 'private' } });
      const devLoopback = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'https://localhost:8443/hook', events: ['consent.granted'] },
      });
      expect(devLoopback.status).toBe(201);
      const rows: Array<{ n: string }> = await db(proc).query(
        'SELECT count(*) AS n FROM webhooks.subscriptions WHERE application_id = $1',
        [prod.id],
      );
      expect(Number(rows[0]!.n)).toBe(0);
    });

    it('accepts every spec event name plus webhook.delivery_failed, and refuses an unknown one by name', async () => {
      const other = await createApp(proc, 'development', 'names');
      const all = [
        'consent.granted',
        'consent.denied',
        'consent.revoked',
        'consent.purpose_revoked',
        'approval.granted',
        'approval.denied',
        'approval.countered',
        'flow.activated',
        'signature.signed',
        'signature.declined',
        'signature.expired',
        'signature.countered',
        'agreement.activated',
        'agreement.declined',
        'agreement.expired',
        'agreement.withdrawn',
        'webhook.delivery_failed',
      ];
      const ok = await http('POST', subsUrl(other), { headers: auth(other), json: { url: 'https://hooks.example.com/', events: all } });
      expect(ok.status).toBe(201);
      expect(ok.body.events).toEqual(all);
      for (const name of ['consent.granted.extra', 'webhook.test', 'signature.*', 'CONSENT.GRANTED']) {
        const res = await http('POST', subsUrl(other), {
          headers: auth(other),
          json: { url: 'https://hooks.example.com/', events: ['consent.granted', name] },
        });
        expect(res.status).toBe(422);
        expect(res.body).toMatchObject({ reason_code: 'webhook_event_unknown', detail: { field: 'events', event: name } });
      }
    });
  });

  describe('bad input on every endpoint answers the exact 4xx, never 5xx', () => {
    let app: TestApp;
    let other: TestApp;
    let subId: string;
    beforeAll(async () => {
      app = await createApp(proc, 'development', 'bad-input');
      other = await createApp(proc, 'development', 'bad-input-other');
      subId = (await subscribe(app, '/bad-input')).id;
    });

    const routes = (application: string, id: string): Array<[string, string]> => [
      ['POST', `${base}/api/v1/applications/${application}/webhook_subscriptions`],
      ['GET', `${base}/api/v1/applications/${application}/webhook_subscriptions`],
      ['GET', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}`],
      ['DELETE', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}`],
      ['POST', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}/rotate_secret`],
      ['POST', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}/enable`],
      ['POST', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}/test`],
      ['GET', `${base}/api/v1/applications/${application}/webhook_subscriptions/${id}/deliveries`],
    ];
    const validBody = () => ({ url: 'https://hooks.example.com/x', events: ['consent.granted'] });

    it('answers 401 without credentials and with an unknown token on every route', async () => {
      for (const [method, url] of routes(app.id, subId)) {
        const none = await http(method, url, { json: method === 'POST' ? validBody() : undefined });
        expect([method, url, none.status, none.body.reason_code]).toEqual([method, url, 401, 'unauthenticated']);
        const bad = await http(method, url, {
          headers: { authorization: 'Bearer not-a-token' },
          json: method === 'POST' ? validBody() : undefined,
        });
        expect([method, url, bad.status, bad.body.reason_code]).toEqual([method, url, 401, 'invalid_token']);
      }
    });

    it('answers 403 to a publishable key on every route', async () => {
      for (const [method, url] of routes(app.id, subId)) {
        const res = await http(method, url, {
          headers: { 'x-publishable-key': app.publishableKey },
          json: method === 'POST' ? validBody() : undefined,
        });
        expect([method, url, res.status, res.body.reason_code]).toEqual([method, url, 403, 'publishable_key_not_allowed']);
      }
    });

    it("answers another application's subscription exactly like an unknown one (404)", async () => {
      for (const [method, url] of routes(other.id, subId)) {
        const res = await http(method, url, { headers: auth(app), json: method === 'POST' ? validBody() : undefined });
        expect([method, url, res.status, res.body.reason_code]).toEqual([method, url, 404, 'application_not_found']);
      }
      for (const [method, url] of routes(app.id, subId).slice(2)) {
        const theirs = await http(method, url.replace(`/applications/${app.id}/`, `/applications/${other.id}/`), { headers: auth(other) });
        expect([method, url, theirs.status, theirs.body.reason_code]).toEqual([method, url, 404, 'webhook_subscription_not_found']);
      }
    });

    it.each([
      ['an unknown id', 'whsub_aaaaaaaaaaaaaaaaaaaa'],
      ['a malformed id', 'nope'],
      ['an overlong id', `whsub_${'a'.repeat(90)}`],
    ])('answers 404 webhook_subscription_not_found for %s on every subscription route', async (_case, id) => {
      for (const [method, url] of routes(app.id, id).slice(2)) {
        const res = await http(method, url, { headers: auth(app) });
        expect([method, res.status, res.body.reason_code]).toEqual([method, 404, 'webhook_subscription_not_found']);
      }
    });

    it.each([
      [
        'an unknown field',
        { ...{ url: 'https://hooks.example.com/x', events: ['consent.granted'] }, secret: 'whsec_mine' },
        400,
        'invalid_request',
        'secret',
      ],
      ['a missing url', { events: ['consent.granted'] }, 400, 'invalid_request', 'url'],
      ['a url of the wrong type', { url: 42, events: ['consent.granted'] }, 400, 'invalid_request', 'url'],
      ['events of the wrong type', { url: 'https://hooks.example.com/x', events: 'consent.granted' }, 400, 'invalid_request', 'events'],
      ['an event of the wrong type', { url: 'https://hooks.example.com/x', events: [7] }, 400, 'invalid_request', 'events'],
      ['no events', { url: 'https://hooks.example.com/x', events: [] }, 422, 'validation_failed', 'events'],
      [
        'an oversized url',
        { url: `https://hooks.example.com/${'a'.repeat(2100)}`, events: ['consent.granted'] },
        422,
        'validation_failed',
        'url',
      ],
      ['a relative url', { url: '/hook', events: ['consent.granted'] }, 422, 'webhook_url_invalid', 'url'],
      ['a url with credentials', { url: 'https://u:p@hooks.example.com/', events: ['consent.granted'] }, 422, 'webhook_url_invalid', 'url'],
      ['a non-http url', { url: 'ftp://hooks.example.com/', events: ['consent.granted'] }, 422, 'webhook_url_invalid', 'url'],
      [
        'null signature_formats',
        { ...{ url: 'https://hooks.example.com/x', events: ['consent.granted'] }, signature_formats: null },
        400,
        'invalid_request',
        'signature_formats',
      ],
      [
        'signature_formats without svc',
        { ...{ url: 'https://hooks.example.com/x', events: ['consent.granted'] }, signature_formats: ['standard_webhooks'] },
        422,
        'validation_failed',
        'signature_formats',
      ],
      [
        'an unknown signature format',
        { ...{ url: 'https://hooks.example.com/x', events: ['consent.granted'] }, signature_formats: ['svc', 'jws'] },
        422,
        'validation_failed',
        'signature_formats',
      ],
    ])('refuses a create with %s', async (_case, body, status, code, field) => {
      const res = await http('POST', subsUrl(app), { headers: auth(app), json: body });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ reason_code: code, detail: { field } });
    });

    it('refuses malformed JSON and an oversized body with 400', async () => {
      const malformed = await http('POST', subsUrl(app), { headers: { ...auth(app), 'content-type': 'application/json' }, raw: '{"url":' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.reason_code).toBe('malformed_json');
      const huge = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'https://hooks.example.com/x', events: ['consent.granted'], pad: 'x'.repeat(1_100_000) },
      });
      expect(huge.status).toBe(413);
      expect(huge.body.reason_code).toBe('payload_too_large');
    });

    it.each([
      ['a forged cursor', 'cursor=bm90LWEtY3Vyc29y', 400, 'invalid_cursor'],
      ['a zero limit', 'limit=0', 422, 'validation_failed'],
      ['a too large limit', 'limit=201', 422, 'validation_failed'],
      ['a non-numeric limit', 'limit=ten', 400, 'invalid_request'],
      ['an unknown query parameter', 'page=2', 400, 'invalid_request'],
    ])('refuses %s on both lists', async (_case, query, status, code) => {
      for (const url of [`${subsUrl(app)}?${query}`, `${subsUrl(app)}/${subId}/deliveries?${query}`]) {
        const res = await http('GET', url, { headers: auth(app) });
        expect([url, res.status, res.body.reason_code]).toEqual([url, status, code]);
      }
    });
  });

  describe('delivery', () => {
    it('POSTs the event once per subscribed endpoint, signed; verified by node:crypto and by the SDK helper', async () => {
      const app = await createApp(proc, 'development', 'deliver');
      const a = await subscribe(app, '/deliver-a');
      const b = await subscribe(app, '/deliver-b', ['consent.granted', 'consent.revoked']);
      await subscribe(app, '/deliver-other-event', ['consent.revoked']);
      const eventId = await publishConsentGranted(proc, clock, app.id, 'person-42');
      const [toA] = await received('/deliver-a', 1);
      const [toB] = await received('/deliver-b', 1);
      for (const [request, secret] of [
        [toA!, a.secret],
        [toB!, b.secret],
      ] as const) {
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['x-svc-event-id']).toBe(eventId);
        expect(request.headers['x-svc-event-type']).toBe('consent.granted');
        expect(request.headers['x-svc-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
        expect(request.headers['x-svc-signature']).toBe(`v1=${hmac(secret, request)}`);
        expect(verifyWebhook({ rawBody: request.rawBody, headers: request.headers, secrets: [secret], now: clock.now() })).toMatchObject({
          eventId,
          eventType: 'consent.granted',
        });
        expect(() =>
          verifyWebhook({
            rawBody: request.rawBody,
            headers: request.headers,
            secrets: [a.secret === secret ? b.secret : a.secret],
            now: clock.now(),
          }),
        ).toThrow(WebhookVerificationError);
        expect(request.body).toEqual({
          event: 'consent.granted',
          id: eventId,
          created_at: clock.now().toISOString(),
          application_id: app.id,
          data: expect.objectContaining({
            flow_id: 'flw_us_abcdefghijklmnopqrst',
            consent_token: 'consent-token-1',
            user_identifier: 'person-42',
            purposes: ['marketing'],
          }),
        });
      }
      await sleep(150);
      expect(receiver.on('/deliver-other-event')).toHaveLength(0);
      expect(receiver.on('/deliver-a')).toHaveLength(1);
      const logged = await recorded(app, a.id, 1);
      expect(logged).toMatchObject({
        event_id: eventId,
        event_type: 'consent.granted',
        test: false,
        status: 'succeeded',
        attempt_count: 1,
        next_attempt_at: null,
        last_status_code: 200,
      });
      expect((logged!.attempts as Array<Record<string, unknown>>)[0]).toMatchObject({
        number: 1,
        status_code: 200,
        outcome: 'succeeded',
        latency_ms: expect.any(Number),
        error: null,
      });
      expect((logged!.payload as Record<string, unknown>).id).toBe(eventId);
    });

    it('creates each (event, subscription) delivery once however often the event is redelivered', async () => {
      const app = await createApp(proc, 'development', 'dedupe');
      const sub = await subscribe(app, '/dedupe');
      const eventId = await publishConsentGranted(proc, clock, app.id);
      await received('/dedupe', 1);
      const intake = proc.app.get(EventIntake);
      const again = await intake.handle({
        id: eventId,
        subject: 'x',
        eventType: 'consent_session.granted',
        data: new Uint8Array(),
        deliveryCount: 2,
      });
      expect(again).toBe(0);
      await sleep(150);
      expect(receiver.on('/dedupe')).toHaveLength(1);
      expect(await deliveries(app, sub.id)).toHaveLength(1);
    });

    it('skips an undecodable event without failing the well-formed events batched with it', async () => {
      const app = await createApp(proc, 'development', 'poison');
      const sub = await subscribe(app, '/poison');
      const intake = proc.app.get(EventIntake);
      const good = create(ConsentGrantedSchema, {
        meta: create(EventMetaSchema, {
          eventId: 'evt-good-1',
          eventType: 'consent_session.granted',
          schemaVersion: 1,
          region: 'us',
          applicationId: app.id,
          occurredAt: timestampFromDate(clock.now()),
        }),
        flowId: 'flw_us_abcdefghijklmnopqrst',
      });
      const created = await intake.handleBatch([
        {
          id: 'evt-poison-1',
          subject: 'x',
          eventType: 'consent_session.granted',
          data: Uint8Array.of(0x0a, 0xff, 0xff, 0xff),
          deliveryCount: 1,
        },
        {
          id: 'evt-other-type',
          subject: 'x',
          eventType: 'consent.record_created',
          data: toBinary(ConsentGrantedSchema, good),
          deliveryCount: 1,
        },
        {
          id: 'evt-good-1',
          subject: 'x',
          eventType: 'consent_session.granted',
          data: toBinary(ConsentGrantedSchema, good),
          deliveryCount: 1,
        },
      ]);
      expect(created).toBe(1);
      const [request] = await received('/poison', 1);
      expect(request!.headers['x-svc-event-id']).toBe('evt-good-1');
      expect((await deliveries(app, sub.id)).map((d) => d.event_id)).toEqual(['evt-good-1']);
    });

    it('retries 5xx after 30 s, 2 min, 15 min, 1 h, then fails the delivery with its audit event and operational webhook', async () => {
      const app = await createApp(proc, 'development', 'schedule');
      const sub = await subscribe(app, '/schedule');
      const watcher = await subscribe(app, '/schedule-watch', ['webhook.delivery_failed']);
      receiver.respond = (r) => (r.path === '/schedule' ? 503 : 200);
      const eventId = await publishConsentGranted(proc, clock, app.id);
      await received('/schedule', 1);
      for (const [index, wait] of [30 * SECOND, 2 * MINUTE, 15 * MINUTE, 60 * MINUTE].entries()) {
        const log = await recorded(app, sub.id, index + 1);
        expect(log.next_attempt_at).toBe(new Date(clock.now().getTime() + wait).toISOString());
        advance(proc, clock, wait - SECOND);
        await sleep(120);
        expect(receiver.on('/schedule')).toHaveLength(index + 1);
        advance(proc, clock, SECOND);
        await received('/schedule', index + 2);
      }
      const requests = receiver.on('/schedule');
      expect(new Set(requests.map((r) => r.headers['x-svc-event-id']))).toEqual(new Set([eventId]));
      expect(new Set(requests.map((r) => r.rawBody)).size).toBe(1);
      const final = await waitFor(async () => {
        const [d] = await deliveries(app, sub.id);
        return d?.status === 'failed' ? d : undefined;
      });
      expect(final).toMatchObject({ attempt_count: 5, max_attempts: 5, next_attempt_at: null, last_status_code: 503 });
      expect((final.attempts as Array<Record<string, unknown>>).map((a) => [a.number, a.status_code, a.outcome])).toEqual([
        [1, 503, 'retry'],
        [2, 503, 'retry'],
        [3, 503, 'retry'],
        [4, 503, 'retry'],
        [5, 503, 'failed'],
      ]);
      advance(proc, clock, 3 * 60 * MINUTE);
      await sleep(120);
      expect(receiver.on('/schedule')).toHaveLength(5);
      const audit = await waitFor(() => failedEvents.find((e) => e.failedEventId === eventId));
      expect(audit).toMatchObject({
        subscriptionId: sub.id,
        failedEventType: 'consent.granted',
        url: receiver.url('/schedule'),
        attempts: 5,
        lastStatusCode: 503,
        reason: 'attempts_exhausted',
        subscriptionDisabled: false,
      });
      expect(audit.meta?.applicationId).toBe(app.id);
      const [operational] = await received('/schedule-watch', 1);
      expect(operational!.headers['x-svc-event-type']).toBe('webhook.delivery_failed');
      expect(operational!.headers['x-svc-signature']).toBe(`v1=${hmac(watcher.secret, operational!)}`);
      expect(operational!.body).toMatchObject({
        event: 'webhook.delivery_failed',
        application_id: app.id,
        data: {
          subscription_id: sub.id,
          failed_event_id: eventId,
          failed_event_type: 'consent.granted',
          attempts: 5,
          reason: 'attempts_exhausted',
        },
      });
      expect((await subscription(app, sub.id)).consecutive_failures).toBe(1);
      receiver.respond = () => 200;
    });

    it('retries a network error (connection refused) like a 5xx', async () => {
      const app = await createApp(proc, 'development', 'refused');
      const res = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'http://127.0.0.1:9/closed', events: ['consent.granted'] },
      });
      await publishConsentGranted(proc, clock, app.id);
      const log = await recorded(app, res.body.id as string, 1);
      expect(log).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null, last_error: 'connection_refused' });
      expect(log.next_attempt_at).toBe(new Date(clock.now().getTime() + 30 * SECOND).toISOString());
    });

    it('refuses at delivery time a production endpoint whose name now resolves to a non-public address: failed at once, with the reason in the log', async () => {
      const app = await createApp(proc, 'production', 'rebound');
      const created = await http('POST', subsUrl(app), {
        headers: auth(app),
        json: { url: 'https://hooks.example.com/rebound', events: ['consent.granted'] },
      });
      expect(created.status).toBe(201);
      const subscriptionId = created.body.id as string;
      // The stored name now answers with loopback (as after a DNS change): the receiver listens there.
      const rebound = receiver.url('/rebound').replace('http://127.0.0.1', 'https://localhost');
      await db(proc).query('UPDATE webhooks.subscriptions SET url = $2 WHERE id = $1', [subscriptionId, rebound]);
      const eventId = await publishConsentGranted(proc, clock, app.id);
      const log = await waitFor(async () => {
        const [d] = await deliveries(app, subscriptionId);
        return d?.status === 'failed' ? d : undefined;
      });
      expect(log).toMatchObject({
        attempt_count: 1,
        last_status_code: null,
        last_error: 'target_address_refused:loopback',
        next_attempt_at: null,
      });
      expect((log.attempts as Array<Record<string, unknown>>)[0]).toMatchObject({
        number: 1,
        status_code: null,
        error: 'target_address_refused:loopback',
        outcome: 'failed',
      });
      expect(await waitFor(() => failedEvents.find((e) => e.failedEventId === eventId))).toMatchObject({
        reason: 'rejected',
        lastError: 'target_address_refused:loopback',
        attempts: 1,
      });
      advance(proc, clock, 3 * 60 * MINUTE);
      await sleep(150);
      expect(receiver.on('/rebound')).toHaveLength(0);
    });

    it('never retries a 4xx: the delivery fails at once', async () => {
      const app = await createApp(proc, 'development', 'four');
      const sub = await subscribe(app, '/four');
      receiver.respond = (r) => (r.path === '/four' ? 422 : 200);
      const eventId = await publishConsentGranted(proc, clock, app.id);
      const log = await waitFor(async () => {
        const [d] = await deliveries(app, sub.id);
        return d?.status === 'failed' ? d : undefined;
      });
      expect(log).toMatchObject({ attempt_count: 1, last_status_code: 422, next_attempt_at: null });
      advance(proc, clock, 3 * 60 * MINUTE);
      await sleep(150);
      expect(receiver.on('/four')).toHaveLength(1);
      expect(await waitFor(() => failedEvents.find((e) => e.failedEventId === eventId))).toMatchObject({
        reason: 'rejected',
        lastStatusCode: 422,
        attempts: 1,
      });
      expect(await subscription(app, sub.id)).toMatchObject({ status: 'enabled', consecutive_failures: 1 });
      receiver.respond = () => 200;
    });

    it('disables the subscription at once on 410 Gone, and holds its later events until re-enabled', async () => {
      const app = await createApp(proc, 'development', 'gone');
      const sub = await subscribe(app, '/gone');
      let gone = true;
      receiver.respond = (r) => (r.path === '/gone' && gone ? 410 : 200);
      const eventId = await publishConsentGranted(proc, clock, app.id);
      await waitFor(async () => ((await subscription(app, sub.id)).status === 'disabled' ? true : undefined));
      expect(await subscription(app, sub.id)).toMatchObject({
        status: 'disabled',
        disabled_reason: 'endpoint_gone',
        disabled_at: clock.now().toISOString(),
      });
      expect(await waitFor(() => failedEvents.find((e) => e.failedEventId === eventId))).toMatchObject({
        lastStatusCode: 410,
        subscriptionDisabled: true,
      });
      await publishConsentGranted(proc, clock, app.id);
      await sleep(200);
      expect(receiver.on('/gone')).toHaveLength(1);
      gone = false;
      const enabled = await http('POST', `${subsUrl(app)}/${sub.id}/enable`, { headers: auth(app) });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null, consecutive_failures: 0 });
      receiver.respond = () => 200;
    });

    it('auto-disables at the fifth consecutive failed delivery; a success resets the count; test deliveries never count', async () => {
      const app = await createApp(proc, 'development', 'auto');
      const sub = await subscribe(app, '/auto');
      let status = 400;
      receiver.respond = (r) => (r.path === '/auto' ? status : 200);
      const failures = async (n: number) => (await subscription(app, sub.id)).consecutive_failures === n;
      const deliverOne = async (expected: number) => {
        const before = receiver.on('/auto').length;
        await publishConsentGranted(proc, clock, app.id);
        await received('/auto', before + 1);
        await waitFor(() => failures(expected));
      };
      const sendTest = async () => {
        const before = receiver.on('/auto').length;
        const res = await http('POST', `${subsUrl(app)}/${sub.id}/test`, { headers: auth(app) });
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({
          object: 'webhook_delivery',
          event_type: 'webhook.test',
          test: true,
          status: 'pending',
          max_attempts: 1,
        });
        await received('/auto', before + 1);
        await waitFor(async () =>
          (await deliveries(app, sub.id)).find((d) => d.id === res.body.id)?.status !== 'pending' ? true : undefined,
        );
      };
      for (const n of [1, 2, 3, 4]) await deliverOne(n);
      await sendTest();
      await sendTest();
      expect(await subscription(app, sub.id)).toMatchObject({ consecutive_failures: 4, status: 'enabled' });
      status = 200;
      await deliverOne(0);
      status = 500;
      await sendTest();
      status = 200;
      await sendTest();
      expect(await subscription(app, sub.id)).toMatchObject({ consecutive_failures: 0, status: 'enabled' });
      status = 404;
      for (const n of [1, 2, 3, 4]) await deliverOne(n);
      expect((await subscription(app, sub.id)).status).toBe('enabled');
      await deliverOne(5);
      expect(await subscription(app, sub.id)).toMatchObject({
        status: 'disabled',
        disabled_reason: 'consecutive_failures',
        consecutive_failures: 5,
      });
      const disabledBy = failedEvents.filter((e) => e.subscriptionId === sub.id && e.subscriptionDisabled);
      expect(disabledBy).toHaveLength(1);
      const tests = (await deliveries(app, sub.id)).filter((d) => d.test === true);
      expect(tests.map((d) => d.status).sort()).toEqual(['failed', 'failed', 'failed', 'succeeded']);
      expect(failedEvents.filter((e) => e.failedEventType === 'webhook.test')).toHaveLength(0);
      receiver.respond = () => 200;
    });

    it('sends a test delivery to a disabled subscription, signed, without retrying it', async () => {
      const app = await createApp(proc, 'development', 'test-delivery');
      const sub = await subscribe(app, '/test-delivery');
      receiver.respond = (r) => (r.path === '/test-delivery' ? 503 : 200);
      const res = await http('POST', `${subsUrl(app)}/${sub.id}/test`, { headers: auth(app) });
      const [request] = await received('/test-delivery', 1);
      expect(request!.headers['x-svc-event-type']).toBe('webhook.test');
      expect(request!.headers['x-svc-event-id']).toBe(res.body.event_id);
      expect(request!.headers['x-svc-signature']).toBe(`v1=${hmac(sub.secret, request!)}`);
      expect(request!.body).toMatchObject({ event: 'webhook.test', application_id: app.id, data: { subscription_id: sub.id } });
      const log = await waitFor(async () =>
        (await deliveries(app, sub.id))[0]?.status === 'failed' ? (await deliveries(app, sub.id))[0] : undefined,
      );
      expect(log).toMatchObject({ attempt_count: 1, last_status_code: 503, next_attempt_at: null });
      advance(proc, clock, 2 * MINUTE);
      await sleep(120);
      expect(receiver.on('/test-delivery')).toHaveLength(1);
      receiver.respond = () => 200;
    });

    it('signs with both secrets for one day after a rotation, then with the new one only', async () => {
      const app = await createApp(proc, 'development', 'rotate');
      const sub = await subscribe(app, '/rotate');
      const rotated = await http('POST', `${subsUrl(app)}/${sub.id}/rotate_secret`, { headers: auth(app) });
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(sub.secret);
      expect(rotated.body.previous_secret_expires_at).toBe(new Date(clock.now().getTime() + 24 * 60 * MINUTE).toISOString());
      const fresh = rotated.body.secret as string;
      await publishConsentGranted(proc, clock, app.id);
      const [overlap] = await received('/rotate', 1);
      expect(overlap!.headers['x-svc-signature']).toBe(`v1=${hmac(fresh, overlap!)} v1=${hmac(sub.secret, overlap!)}`);
      for (const secrets of [[fresh], [sub.secret], [fresh, sub.secret]]) {
        expect(verifyWebhook({ rawBody: overlap!.rawBody, headers: overlap!.headers, secrets, now: clock.now() }).eventType).toBe(
          'consent.granted',
        );
      }
      advance(proc, clock, 24 * 60 * MINUTE - SECOND);
      await publishConsentGranted(proc, clock, app.id);
      const [, stillOverlap] = await received('/rotate', 2);
      expect((stillOverlap!.headers['x-svc-signature'] as string).split(' ')).toHaveLength(2);
      advance(proc, clock, SECOND);
      expect((await subscription(app, sub.id)).previous_secret_expires_at).toBeNull();
      await publishConsentGranted(proc, clock, app.id);
      const [, , after] = await received('/rotate', 3);
      expect(after!.headers['x-svc-signature']).toBe(`v1=${hmac(fresh, after!)}`);
      expect(verifyWebhook({ rawBody: after!.rawBody, headers: after!.headers, secrets: [fresh], now: clock.now() }).eventType).toBe(
        'consent.granted',
      );
      let reason = '';
      try {
        verifyWebhook({ rawBody: after!.rawBody, headers: after!.headers, secrets: [sub.secret], now: clock.now() });
      } catch (error) {
        reason = (error as WebhookVerificationError).reason;
      }
      expect(reason).toBe('signature_mismatch');
    });

    it('has a subscription on a secret minted before the base64 form rotate before opting into Standard Webhooks, then signs webhook-signature with the new secret only', async () => {
      const app = await createApp(proc, 'development', 'legacy');
      const sub = await subscribe(app, '/legacy');
      const legacy = `whsec_${'a1B2c3D4e5'.repeat(4)}xyz`;
      await db(proc).query('UPDATE webhooks.subscriptions SET secret_enc = $2 WHERE id = $1', [
        sub.id,
        proc.app.get(KeyEncryption).encrypt(Buffer.from(legacy, 'utf8'), sub.id),
      ]);
      const optIn = { signature_formats: ['svc', 'standard_webhooks'] };
      const refused = await http('PATCH', `${subsUrl(app)}/${sub.id}`, { headers: auth(app), json: optIn });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ reason_code: 'webhook_secret_rotation_required', detail: { field: 'signature_formats' } });
      expect((await subscription(app, sub.id)).signature_formats).toEqual(['svc']);

      const fresh = (await http('POST', `${subsUrl(app)}/${sub.id}/rotate_secret`, { headers: auth(app) })).body.secret as string;
      expect((await http('PATCH', `${subsUrl(app)}/${sub.id}`, { headers: auth(app), json: optIn })).status).toBe(200);
      await publishConsentGranted(proc, clock, app.id);
      const [request] = await received('/legacy', 1);
      expect(request!.headers['x-svc-signature']).toBe(`v1=${hmac(fresh, request!)} v1=${hmac(legacy, request!)}`);
      const signedContent = `${String(request!.headers['webhook-id'])}.${String(request!.headers['webhook-timestamp'])}.${request!.rawBody}`;
      const key = Buffer.from(fresh.slice('whsec_'.length), 'base64');
      expect(request!.headers['webhook-signature']).toBe(`v1,${createHmac('sha256', key).update(signedContent).digest('base64')}`);
      expect(request!.headers['webhook-id']).toBe(request!.headers['x-svc-event-id']);
    });

    it('keeps payloads for the configured retention, then drops them from the log (attempts stay)', async () => {
      const app = await createApp(proc, 'development', 'retention');
      const sub = await subscribe(app, '/retention');
      await publishConsentGranted(proc, clock, app.id);
      await recorded(app, sub.id, 1);
      const worker = proc.app.get(DeliveryWorker);
      clock.advance(29 * 24 * 60 * MINUTE);
      await worker.purgeNow();
      expect((await deliveries(app, sub.id))[0]!.payload).not.toBeNull();
      clock.advance(2 * 24 * 60 * MINUTE);
      await worker.purgeNow();
      const [purged] = await deliveries(app, sub.id);
      expect(purged).toMatchObject({ payload: null, status: 'succeeded' });
      expect(purged!.attempts).toHaveLength(1);
    });
  });

  describe('intake of applications without subscription', () => {
    /** Resolves once the intake has handled every event of `ids` since the spy began. */
    const handled = async (spy: jest.SpyInstance<Promise<number>, Parameters<EventIntake['handleBatch']>>, ids: readonly string[]) => {
      const calls = await waitFor(() => {
        const seen = new Set(spy.mock.calls.flatMap(([events]) => events.map((e) => e.id)));
        return ids.every((id) => seen.has(id)) ? spy.mock.results : undefined;
      });
      await Promise.all(calls.map((result) => result.value as Promise<number>));
    };
    /**
     * Watches the intake's batches from now on: `statements()` counts the connections (every
     * statement and transaction takes one) taken while handling batches made only of events of
     * `applicationId`, told from the workers' and other applications' by the batch in the async
     * context; the read of which applications have a subscription is counted apart
     * (`applicationsWithEnabled`).
     */
    const watchIntake = (applicationId: string) => {
      const intake = proc.app.get(EventIntake);
      const handleBatch = intake.handleBatch.bind(intake);
      const batch = new AsyncLocalStorage<readonly DeliveredEvent[]>();
      const batches = jest.spyOn(intake, 'handleBatch').mockImplementation((events) => batch.run(events, () => handleBatch(events)));
      const ours = (event: DeliveredEvent) => {
        try {
          return fromBinary(ConsentGrantedSchema, event.data).meta?.applicationId === applicationId;
        } catch {
          return false;
        }
      };
      let statements = 0;
      const dataSource = db(proc);
      const createQueryRunner = dataSource.createQueryRunner.bind(dataSource);
      jest.spyOn(dataSource, 'createQueryRunner').mockImplementation((...args) => {
        const events = batch.getStore();
        if (events?.every(ours) && !new Error().stack?.includes('applicationsWithEnabled')) statements += 1;
        return createQueryRunner(...args);
      });
      return { batches, statements: () => statements };
    };
    const inboxRows = async (ids: readonly string[]) =>
      Number(
        (
          await db(proc).query<Array<{ n: string }>>(
            `SELECT count(*) AS n FROM webhooks.inbox WHERE consumer = $1 AND message_id = ANY($2::text[])`,
            [INTAKE_CONSUMER, ids],
          )
        )[0]!.n,
      );
    // The cached answers never age during these tests, so only a commit can renew them.
    let clockOfAnswers: { now: () => number };
    let realNow: () => number;
    beforeEach(() => {
      clockOfAnswers = (proc.app.get(SubscribedApplications) as unknown as { cache: { now: () => number } }).cache;
      realNow = clockOfAnswers.now;
      clockOfAnswers.now = () => 0;
    });
    afterEach(() => {
      clockOfAnswers.now = realNow;
      jest.restoreAllMocks();
    });

    it('the events of an application without subscription cost the intake no statement and leave no inbox row', async () => {
      const app = await createApp(proc, 'development', 'quiet');
      const { batches, statements } = watchIntake(app.id);
      const reads = jest.spyOn(proc.app.get(SubscriptionsRepository), 'applicationsWithEnabled');
      const ids: string[] = [];
      for (let i = 0; i < 20; i += 1) ids.push(await publishConsentGranted(proc, clock, app.id, `quiet-${i}`));
      await handled(batches, ids);
      // At most one read of whether the application has a subscription (none when the answer was
      // cached already); no other statement: no transaction, no inbox mark.
      expect(reads.mock.calls.filter(([apps]) => apps.includes(app.id)).length).toBeLessThanOrEqual(1);
      expect(statements()).toBe(0);
      expect(await inboxRows(ids)).toBe(0);
    });

    it('a subscription created just now receives the events written after it is answered', async () => {
      const app = await createApp(proc, 'development', 'fresh');
      const { batches, statements } = watchIntake(app.id);
      // The intake has answered "no subscription" for this application (and keeps that answer) ...
      const before = await publishConsentGranted(proc, clock, app.id, 'early');
      await handled(batches, [before]);
      // ... when a subscription is created, and an event follows at once.
      const sub = await subscribe(app, '/fresh');
      const quiet = statements();
      const after = await publishConsentGranted(proc, clock, app.id, 'late');
      const [request] = await received('/fresh', 1);
      expect(request!.headers['x-svc-event-id']).toBe(after);
      await handled(batches, [after]);
      await sleep(150);
      expect((await deliveries(app, sub.id)).map((d) => d.event_id)).toEqual([after]);
      expect(await inboxRows([before, after])).toBe(1);
      // The event of a subscribed application goes through the transaction (and the count above sees it).
      expect(quiet).toBe(0);
      expect(statements()).toBeGreaterThan(0);
    });

    it("another process's answer, read before a creation or a re-enabling, has expired when it is answered", async () => {
      const app = await createApp(proc, 'development', 'elsewhere');
      // Another process of the region: its own answers, aging in real time, never told of the change.
      const otherProcess = new SubscribedApplications(proc.app.get(SubscriptionsRepository));
      expect(await otherProcess.subscribed(app.id)).toBe(false);
      const sub = await subscribe(app, '/elsewhere');
      // So an event written after this answer is fanned out, whichever process consumes it.
      expect(await otherProcess.subscribed(app.id)).toBe(true);

      // Disabled (as a 410 does), then re-enabled.
      await db(proc).query(`UPDATE webhooks.subscriptions SET status = 'disabled', disabled_reason = 'endpoint_gone' WHERE id = $1`, [
        sub.id,
      ]);
      const again = new SubscribedApplications(proc.app.get(SubscriptionsRepository));
      expect(await again.subscribed(app.id)).toBe(false);
      const enabled = await http('POST', `${subsUrl(app)}/${sub.id}/enable`, { headers: auth(app) });
      expect(enabled.status).toBe(200);
      expect(await again.subscribed(app.id)).toBe(true);
    });
  });

  describe('durability', () => {
    it('retries a claim left by a crashed worker once its lease lapses, with the same event id', async () => {
      const app = await createApp(proc, 'development', 'lease');
      const sub = await subscribe(app, '/lease');
      const repo = proc.app.get(DeliveriesRepository);
      const deliveryId = newDeliveryId();
      // One transaction: the delivery appears already leased to a worker that died mid-attempt.
      await db(proc).transaction(async (manager) => {
        await repo.enqueue(
          manager,
          [
            {
              id: deliveryId,
              subscriptionId: sub.id,
              applicationId: app.id,
              eventId: 'evt-crashed-1',
              eventType: 'consent_session.granted',
              isTest: false,
              payload: '{"event":"consent.granted","id":"evt-crashed-1"}',
              maxAttempts: 5,
            },
          ],
          clock.now(),
        );
        await manager.query(`UPDATE webhooks.deliveries SET lease_owner = 'dead-worker', lease_expires_at = $2 WHERE id = $1`, [
          deliveryId,
          new Date(clock.now().getTime() + 60 * SECOND),
        ]);
      });
      advance(proc, clock, 59 * SECOND);
      await sleep(150);
      expect(receiver.on('/lease')).toHaveLength(0);
      advance(proc, clock, SECOND);
      const [request] = await received('/lease', 1);
      expect(request!.headers['x-svc-event-id']).toBe('evt-crashed-1');
      expect(request!.headers['x-svc-signature']).toBe(`v1=${hmac(sub.secret, request!)}`);
      expect(await recorded(app, sub.id, 1)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    });

    it('completes a delivery after the dispatcher is stopped mid-schedule and a new one starts on the same database', async () => {
      const app = await createApp(proc, 'development', 'restart');
      const sub = await subscribe(app, '/restart');
      receiver.respond = (r) => (r.path === '/restart' && receiver.on('/restart').length === 1 ? 500 : 200);
      const eventId = await publishConsentGranted(proc, clock, app.id);
      await received('/restart', 1);
      const pending = await recorded(app, sub.id, 1);
      expect(pending).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 500 });
      await proc.close();
      proc = await startDispatcher(env, clock);
      base = proc.url;
      advance(proc, clock, 30 * SECOND);
      const [first, second] = await received('/restart', 2);
      expect(second!.headers['x-svc-event-id']).toBe(eventId);
      expect(second!.headers['x-svc-event-id']).toBe(first!.headers['x-svc-event-id']);
      expect(second!.rawBody).toBe(first!.rawBody);
      expect(second!.headers['x-svc-signature']).toBe(`v1=${hmac(sub.secret, second!)}`);
      const done = await recorded(app, sub.id, 2);
      expect(done).toMatchObject({ status: 'succeeded', attempt_count: 2, last_status_code: 200 });
      receiver.respond = () => 200;
    });

    it('lets two dispatcher instances share one database without ever sending the same attempt twice', async () => {
      const second = await startDispatcher(env, clock);
      try {
        const app = await createApp(proc, 'development', 'pair');
        const sub = await subscribe(app, '/pair');
        const repo = proc.app.get(DeliveriesRepository);
        const count = 300;
        await db(proc).transaction((manager) =>
          repo.enqueue(
            manager,
            Array.from({ length: count }, (_, i) => ({
              id: newDeliveryId(),
              subscriptionId: sub.id,
              applicationId: app.id,
              eventId: `evt-pair-${i}`,
              eventType: 'consent_session.granted',
              isTest: false,
              payload: JSON.stringify({ event: 'consent.granted', id: `evt-pair-${i}` }),
              maxAttempts: 5,
            })),
            clock.now(),
          ),
        );
        advance(proc, clock, 0);
        advance(second, clock, 0);
        await received('/pair', count);
        await sleep(300);
        const ids = receiver.on('/pair').map((r) => r.headers['x-svc-event-id']);
        expect(ids).toHaveLength(count);
        expect(new Set(ids).size).toBe(count);
        const rows: Array<{ n: string }> = await db(proc).query(
          `SELECT count(*) AS n FROM webhooks.attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.subscription_id = $1`,
          [sub.id],
        );
        expect(Number(rows[0]!.n)).toBe(count);
      } finally {
        await second.close();
      }
    });
  });
});
