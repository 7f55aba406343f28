import { randomUUID } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { BusConnection, EventPublisher } from '@svc/bus';
import { FakeClock, PlatformConfig, type Environment } from '@svc/config';
import { EventMetaSchema, GrantRevokedSchema, eventSubject } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand, decisionGatewayFeature } from '@svc/decision-gateway';
import { SigningKeyStore } from '@svc/key-store';
import { startProcess, type RunningProcess } from '@svc/server';
import {
  LoopbackReceiver,
  createTestDatabase,
  deleteTestStreams,
  http,
  testEnv,
  testKeyEncryptionKey,
  uniqueBusPrefix,
  waitFor,
  type ReceivedWebhook,
  type TestDatabase,
} from '@svc/testing';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { DataSource } from 'typeorm';
import { CAEP_SESSION_REVOKED, SSF_VERIFICATION, SetDeliveryWorker, webhookDispatcherFeature } from '../src';

jest.setTimeout(60_000);

/** Spec: `/.well-known/ssf-configuration`, revocations on the security-event stream; SSF 1.0 §8.1, RFC 8935, RFC 8417. */
describe('Shared Signals transmitter with a loopback receiver and a fake clock', () => {
  let database: TestDatabase;
  let prefix: string;
  let env: Environment;
  let clock: FakeClock;
  let proc: RunningProcess;
  let app: { id: string; token: string };
  const receiver = new LoopbackReceiver();

  const issuer = () => proc.app.get(PlatformConfig).publicBaseUrl;
  const auth = () => ({ authorization: `Bearer ${app.token}` });
  const url = (path: string) => `${proc.url}/api/v1/ssf/${path}`;

  async function verified(
    request: ReceivedWebhook,
  ): Promise<{ header: Record<string, unknown>; claims: JWTPayload & Record<string, unknown> }> {
    const jwks = createLocalJWKSet(await proc.app.get(SigningKeyStore).jwks());
    const { payload, protectedHeader } = await jwtVerify(request.rawBody, jwks, {
      issuer: issuer(),
      audience: app.id,
      typ: 'secevent+jwt',
      algorithms: ['EdDSA'],
    });
    return { header: protectedHeader as Record<string, unknown>, claims: payload as JWTPayload & Record<string, unknown> };
  }

  async function publishGrantRevoked(grantId: string): Promise<string> {
    const bus = proc.app.get(BusConnection);
    const id = randomUUID();
    const message = create(GrantRevokedSchema, {
      meta: create(EventMetaSchema, {
        eventId: id,
        eventType: 'grant.revoked',
        schemaVersion: 1,
        region: bus.region,
        applicationId: app.id,
        occurredAt: timestampFromDate(clock.now()),
      }),
      grantId,
      revokedAt: clock.now().toISOString(),
    });
    await new EventPublisher(bus).publish({
      id,
      eventType: 'grant.revoked',
      subject: eventSubject(bus.prefix, bus.region, 'grant.revoked'),
      data: toBinary(GrantRevokedSchema, message),
    });
    return id;
  }

  async function stream(path: string): Promise<string> {
    const res = await http('POST', url('streams'), {
      headers: auth(),
      json: {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url(path), authorization_header: 'Bearer rcv' },
        events_requested: [CAEP_SESSION_REVOKED],
      },
    });
    expect(res.status).toBe(201);
    return res.body.stream_id as string;
  }

  beforeAll(async () => {
    database = await createTestDatabase('ssf');
    prefix = uniqueBusPrefix();
    clock = new FakeClock('2026-11-28T12:00:00.000Z');
    env = testEnv({
      REGION: 'us',
      DATABASE_URL: database.url,
      BUS_PREFIX: prefix,
      KEY_ENCRYPTION_KEY: testKeyEncryptionKey(),
      WEBHOOK_POLL_MS: '20',
    });
    await receiver.start();
    receiver.respond = () => 202;
    proc = await startProcess({ features: [decisionGatewayFeature, webhookDispatcherFeature], env, clock });
    const created = await proc.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'ssf', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
  });
  afterAll(async () => {
    await proc?.close();
    await receiver.close();
    await database?.drop();
    await deleteTestStreams(prefix);
  });

  it('publishes the transmitter configuration', async () => {
    const res = await http('GET', `${proc.url}/.well-known/ssf-configuration`);
    expect(res.body).toMatchObject({
      spec_version: '1_0',
      issuer: issuer(),
      jwks_uri: `${issuer()}/.well-known/jwks.json`,
      delivery_methods_supported: ['urn:ietf:rfc:8935'],
      configuration_endpoint: `${issuer()}/api/v1/ssf/streams`,
    });
  });

  it("pushes a revoked grant as a signed session-revoked SET with the receiver's Authorization header, once per bus event", async () => {
    await stream('/push');
    const eventId = await publishGrantRevoked('ath_us_one');
    const [request] = await waitFor(() => (receiver.on('/push').length >= 1 ? receiver.on('/push') : undefined));
    expect(request!.headers['content-type']).toBe('application/secevent+jwt');
    expect(request!.headers.authorization).toBe('Bearer rcv');
    const { header, claims } = await verified(request!);
    expect(header).toMatchObject({ alg: 'EdDSA', typ: 'secevent+jwt', kid: 'oap-us-v1' });
    expect(claims).toMatchObject({
      iss: issuer(),
      aud: app.id,
      txn: eventId,
      sub_id: { format: 'opaque', id: 'ath_us_one' },
      events: { [CAEP_SESSION_REVOKED]: { initiating_entity: 'admin' } },
    });
    expect(claims).not.toHaveProperty('exp');
    // The same bus event again (a redelivery) adds nothing.
    const bus = proc.app.get(BusConnection);
    const again = create(GrantRevokedSchema, {
      meta: create(EventMetaSchema, {
        eventId,
        eventType: 'grant.revoked',
        schemaVersion: 1,
        region: 'us',
        applicationId: app.id,
        occurredAt: timestampFromDate(clock.now()),
      }),
      grantId: 'ath_us_one',
    });
    await new EventPublisher(bus).publish({
      id: `${eventId}-redelivered`,
      eventType: 'grant.revoked',
      subject: eventSubject(bus.prefix, bus.region, 'grant.revoked'),
      data: toBinary(GrantRevokedSchema, again),
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.on('/push')).toHaveLength(1);
  });

  it('retries a 5xx after 30 s, never retries a 4xx, and delivers the verification event', async () => {
    const id = await stream('/flaky');
    let answers = [503, 202];
    receiver.respond = (request) => (request.path === '/flaky' ? (answers.shift() ?? 400) : 202);
    expect((await http('POST', url('verify'), { headers: auth(), json: { stream_id: id, state: 'ping' } })).status).toBe(204);
    await waitFor(() => (receiver.on('/flaky').length >= 1 ? true : undefined));
    const db = proc.app.get(DataSource);
    await waitFor(
      async () =>
        ((await db.query(`SELECT attempts FROM webhooks.ssf_deliveries WHERE stream_id = $1`, [id])) as Array<{ attempts: number }>)[0]
          ?.attempts === 1 || undefined,
    );
    clock.advance(29_000);
    proc.app.get(SetDeliveryWorker).kick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.on('/flaky')).toHaveLength(1);
    clock.advance(2_000);
    proc.app.get(SetDeliveryWorker).kick();
    const [, second] = await waitFor(() => (receiver.on('/flaky').length >= 2 ? receiver.on('/flaky') : undefined));
    expect((await verified(second!)).claims).toMatchObject({
      sub_id: { format: 'opaque', id },
      events: { [SSF_VERIFICATION]: { state: 'ping' } },
    });

    answers = [400];
    await publishGrantRevoked('ath_us_two');
    await waitFor(
      async () =>
        (
          (await db.query(`SELECT status FROM webhooks.ssf_deliveries WHERE stream_id = $1 AND event_type = $2`, [
            id,
            CAEP_SESSION_REVOKED,
          ])) as Array<{ status: string }>
        )[0]?.status === 'failed' || undefined,
    );
    clock.advance(3_600_000);
    proc.app.get(SetDeliveryWorker).kick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.on('/flaky')).toHaveLength(3);
  });

  it('holds SETs while paused and pushes them once enabled; a disabled stream drops them', async () => {
    receiver.respond = () => 202;
    const id = await stream('/paused');
    await http('POST', url('status'), { headers: auth(), json: { stream_id: id, status: 'paused' } });
    await publishGrantRevoked('ath_us_held');
    const db = proc.app.get(DataSource);
    await waitFor(
      async () =>
        ((await db.query(`SELECT count(*)::int AS n FROM webhooks.ssf_deliveries WHERE stream_id = $1`, [id])) as Array<{ n: number }>)[0]
          ?.n === 1 || undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.on('/paused')).toHaveLength(0);
    await http('POST', url('status'), { headers: auth(), json: { stream_id: id, status: 'enabled' } });
    const [held] = await waitFor(() => (receiver.on('/paused').length >= 1 ? receiver.on('/paused') : undefined));
    expect((await verified(held!)).claims).toMatchObject({ sub_id: { id: 'ath_us_held' } });

    await http('POST', url('status'), { headers: auth(), json: { stream_id: id, status: 'disabled' } });
    await publishGrantRevoked('ath_us_dropped');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await http('POST', url('status'), { headers: auth(), json: { stream_id: id, status: 'enabled' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.on('/paused')).toHaveLength(1);
    expect((await http('POST', url('verify'), { headers: auth(), json: { stream_id: id } })).status).toBe(204);
  });
});
