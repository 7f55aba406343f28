import { fromBinary } from '@bufbuild/protobuf';
import { BusConnection, type DeliveredEvent } from '@svc/bus';
import { ConsentRecordedSchema } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { verifyWebhook } from '@svc/sdk-webhooks';
import { http, waitFor, LoopbackReceiver, type ReceivedWebhook } from '@svc/testing';
import { startRegions, type TestRegions } from '../support/regions';
import { EventIntake } from '@svc/webhook-dispatcher';

type Decision = 'granted' | 'declined';

const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

jest.setTimeout(120_000);

/**
 * Spec: Events → Webhooks (consent.granted "… or a record is recorded", carrying the supplied
 * subject reference and per-purpose outcome; consent.denied; consent.revoked;
 * consent.purpose_revoked), Captured consent and receipts. Records written through the Record API
 * reach the application's subscribers under the webhook names, one signed delivery each.
 */
describe('consent records fire webhooks (Record API → subscriber)', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let flowId: string;
  const receiver = new LoopbackReceiver();
  const secrets: Record<string, string> = {};
  /** Every event published in the region, as a consumer receives it (for redelivery). */
  const published: DeliveredEvent[] = [];

  async function subscribe(path: string, event: string): Promise<void> {
    const res = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(app.token),
      json: { url: receiver.url(path), events: [event] },
    });
    expect(res.status).toBe(201);
    secrets[path] = res.body.secret as string;
  }

  async function recordConsent(subject: Record<string, string>, decisions: Record<string, Decision>, key: string): Promise<string> {
    const res = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject,
        decisions: Object.fromEntries(
          Object.entries(decisions).map(([purpose, decision]) => [purpose, { decision, default_checked: false, mandatory: false }]),
        ),
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: key,
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  /** The deliveries on `path` that concern one record. */
  const deliveriesOf = (path: string, recordId: string): ReceivedWebhook[] =>
    receiver.on(path).filter((r) => (r.body.data as Record<string, unknown>).record_id === recordId);

  /** Waits for the first delivery of a record on `path`, checks its signature and headers, and returns its body. */
  async function signedDelivery(
    path: string,
    recordId: string,
    eventType: string,
  ): Promise<{ request: ReceivedWebhook; body: Record<string, unknown> }> {
    const request = await waitFor(() => deliveriesOf(path, recordId)[0]);
    const verified = verifyWebhook({ rawBody: request.rawBody, headers: request.headers, secrets: [secrets[path]!] });
    expect(verified.eventType).toBe(eventType);
    expect(verified.eventId).toBe(request.body.id);
    expect(request.body).toMatchObject({ event: eventType, application_id: app.id });
    return { request, body: request.body };
  }

  beforeAll(async () => {
    await receiver.start();
    stack = await startRegions('webhook_records', { regions: ['us'] });
    us = stack.url.us;
    const bus = stack.process.us.app.get(BusConnection);
    const tap = bus.nc.subscribe(`${stack.prefix}.us.evt.>`);
    void (async () => {
      for await (const msg of tap) {
        published.push({
          id: msg.headers?.get('Nats-Msg-Id') ?? '',
          subject: msg.subject,
          eventType: msg.headers?.get('Svc-Event-Type') ?? '',
          data: msg.data,
          deliveryCount: 2,
        });
      }
    })();
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme hooks', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Signup form',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch', description: 'What we do with your email address' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'offers', label: 'Partner offers', description: 'Offers from our partners' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    await subscribe('/granted', 'consent.granted');
    await subscribe('/denied', 'consent.denied');
    await subscribe('/revoked', 'consent.revoked');
    await subscribe('/purpose', 'consent.purpose_revoked');
  });
  afterAll(async () => {
    await stack?.close();
    await receiver.close();
  });

  let grantedId: string;

  it('a recorded consent with a granted purpose reaches consent.granted subscribers once, signed, with the subject reference and per-purpose outcome', async () => {
    grantedId = await recordConsent(
      { email: 'ada@example.com', external_id: 'ada-1815' },
      { newsletter: 'granted', offers: 'declined' },
      'hooks-ada-1',
    );
    const { request, body } = await signedDelivery('/granted', grantedId, 'consent.granted');
    expect(body.data).toEqual({
      record_id: grantedId,
      flow_id: flowId,
      flow_version: 1,
      subject: { email: 'ada@example.com', external_id: 'ada-1815' },
      purposes: [
        { purpose: 'newsletter', decision: 'granted' },
        { purpose: 'offers', decision: 'declined' },
      ],
      collection_channel: 'controller_attested',
      captured_at: expect.any(String),
      recorded_at: expect.any(String),
    });
    // X-Svc-Event-ID is the bus event's id; a redelivery of that event sends nothing again.
    const busEvent = published.find(
      (e) => e.eventType === 'consent.recorded' && fromBinary(ConsentRecordedSchema, e.data).recordId === grantedId,
    )!;
    expect(request.headers['x-svc-event-id']).toBe(fromBinary(ConsentRecordedSchema, busEvent.data).meta?.eventId);
    expect(await stack.process.us.app.get(EventIntake).handle(busEvent)).toBe(0);
    await sleep(500);
    expect(deliveriesOf('/granted', grantedId)).toHaveLength(1);
    expect(deliveriesOf('/denied', grantedId)).toHaveLength(0);
  });

  it('a record with every purpose declined reaches consent.denied subscribers, not consent.granted ones', async () => {
    const deniedId = await recordConsent({ external_id: 'grace-1906' }, { newsletter: 'declined', offers: 'declined' }, 'hooks-grace-1');
    const { body } = await signedDelivery('/denied', deniedId, 'consent.denied');
    expect(body.data).toMatchObject({
      record_id: deniedId,
      subject: { external_id: 'grace-1906' },
      purposes: [
        { purpose: 'newsletter', decision: 'declined' },
        { purpose: 'offers', decision: 'declined' },
      ],
    });
    expect((body.data as Record<string, unknown>).subject).not.toHaveProperty('email');
    await sleep(500);
    expect(deliveriesOf('/granted', deniedId)).toHaveLength(0);
    expect(deliveriesOf('/denied', deniedId)).toHaveLength(1);
  });

  it('a purpose withdrawal reaches consent.purpose_revoked subscribers', async () => {
    const res = await http('POST', `${us}/api/v1/consent_records/${grantedId}/withdrawals`, {
      headers: auth(app.token),
      json: { purpose: 'newsletter', channel: 'organisation' },
    });
    expect(res.status).toBe(201);
    const { body } = await signedDelivery('/purpose', grantedId, 'consent.purpose_revoked');
    expect(body.data).toMatchObject({
      record_id: grantedId,
      flow_id: flowId,
      purpose: 'newsletter',
      channel: 'organisation',
      subject_email: 'ada@example.com',
    });
  });

  it('a whole withdrawal reaches consent.revoked subscribers once, with the record, subject reference and the purposes it ended', async () => {
    const recordId = await recordConsent({ email: 'alan@example.com' }, { newsletter: 'granted', offers: 'granted' }, 'hooks-alan-1');
    await signedDelivery('/granted', recordId, 'consent.granted');
    const res = await http('POST', `${us}/api/v1/consent_records/${recordId}/withdrawals`, {
      headers: auth(app.token),
      json: { channel: 'organisation' },
    });
    expect(res.status).toBe(201);
    const { body } = await signedDelivery('/revoked', recordId, 'consent.revoked');
    expect(body.data).toEqual({
      record_id: recordId,
      flow_id: flowId,
      flow_version: 1,
      subject: { email: 'alan@example.com' },
      purposes: expect.any(Array),
      channel: 'organisation',
      revoked_at: expect.any(String),
    });
    expect([...((body.data as Record<string, unknown>).purposes as string[])].sort()).toEqual(['newsletter', 'offers']);
    // A record withdrawal publishes consent.record_revoked only: one webhook, no session-shaped echo.
    await sleep(1_000);
    expect(published.some((e) => e.eventType === 'consent_session.revoked')).toBe(false);
    expect(receiver.on('/revoked')).toHaveLength(1);
  });
});
