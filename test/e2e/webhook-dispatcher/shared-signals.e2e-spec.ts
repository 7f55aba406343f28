import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CAEP_SESSION_REVOKED, CAEP_TOKEN_CLAIMS_CHANGE, SSF_VERIFICATION } from '@svc/webhook-dispatcher';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { startSsfReceiver, type SsfReceiver } from '../support/ssf-receiver';
import {
  bearer,
  createAgent,
  createApp,
  createAuthority,
  grantBody,
  newAgentKey,
  requestGrant,
  type AgentKey,
  type TestApp,
} from '../oap-authorizer/support';

/** Spec: `/.well-known/ssf-configuration`, "Revocations propagate through the webhook and security-event-stream pipeline", Limits (revocation propagation < 30 s). */
describe('Shared Signals transmitter', () => {
  const clock = new FakeClock(new Date().toISOString());
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let agentId: string;
  let receiver: SsfReceiver;
  const webhooks: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown>; at: number }> = [];
  let hookServer: Server;
  let hookUrl: string;

  const streams = (path = '') => `${us}/api/v1/ssf/${path}`;
  const auth = () => bearer(app.token);

  beforeAll(async () => {
    hookServer = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        webhooks.push({
          headers: req.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          at: Date.now(),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
    receiver = await startSsfReceiver();
    stack = await startRegions('ssf', { clock, regions: ['us', 'eu', 'ap'] });
    us = stack.url.us;
    app = await createApp(stack, 'ssf');
    receiver.trust(us, app.id);
    key = await newAgentKey();
    agentId = await createAgent(us, app, { manifest: true });
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
    hookServer?.closeAllConnections();
    await new Promise<void>((resolve) => (hookServer ? hookServer.close(() => resolve()) : resolve()));
  });

  it('publishes the SSF 1.0 transmitter configuration', async () => {
    const res = await http('GET', `${us}/.well-known/ssf-configuration`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      spec_version: '1_0',
      issuer: us,
      jwks_uri: `${us}/.well-known/jwks.json`,
      delivery_methods_supported: ['urn:ietf:rfc:8935'],
      configuration_endpoint: `${us}/api/v1/ssf/streams`,
      status_endpoint: `${us}/api/v1/ssf/status`,
      verification_endpoint: `${us}/api/v1/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6750' }],
      default_subjects: 'ALL',
    });
  });

  it('manages a stream: create (idempotent), read, list, update, replace, status, delete; refuses what it cannot deliver', async () => {
    const body = {
      delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url, authorization_header: 'Bearer receiver-secret' },
      events_requested: [CAEP_SESSION_REVOKED, 'https://example.test/unknown'],
      description: 'first',
    };
    const idem = randomUUID();
    const created = await http('POST', streams('streams'), { headers: { ...auth(), 'idempotency-key': idem }, json: body });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      stream_id: expect.stringMatching(/^ssfs_[a-z2-7]{20}$/),
      iss: us,
      aud: app.id,
      delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url },
      events_supported: [CAEP_SESSION_REVOKED, CAEP_TOKEN_CLAIMS_CHANGE],
      events_requested: [CAEP_SESSION_REVOKED, 'https://example.test/unknown'],
      events_delivered: [CAEP_SESSION_REVOKED],
      min_verification_interval: 0,
      description: 'first',
    });
    expect(JSON.stringify(created.body)).not.toContain('receiver-secret');
    const id = created.body.stream_id as string;
    const replay = await http('POST', streams('streams'), { headers: { ...auth(), 'idempotency-key': idem }, json: body });
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.stream_id]).toEqual([201, 'true', id]);
    const reused = await http('POST', streams('streams'), {
      headers: { ...auth(), 'idempotency-key': idem },
      json: { ...body, description: 'other' },
    });
    expect([reused.status, reused.body.reason_code]).toEqual([422, 'idempotency_key_reused']);

    expect((await http('GET', `${streams('streams')}?stream_id=${id}`, { headers: auth() })).body).toMatchObject({
      stream_id: id,
      description: 'first',
    });
    expect((await http('GET', streams('streams'), { headers: auth() })).body).toEqual([expect.objectContaining({ stream_id: id })]);
    const patched = await http('PATCH', streams('streams'), {
      headers: auth(),
      json: { stream_id: id, events_requested: [CAEP_TOKEN_CLAIMS_CHANGE] },
    });
    expect(patched.body).toMatchObject({ events_delivered: [CAEP_TOKEN_CLAIMS_CHANGE], description: 'first' });
    const replaced = await http('PUT', streams('streams'), {
      headers: auth(),
      json: {
        stream_id: id,
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url },
        events_requested: [CAEP_SESSION_REVOKED],
      },
    });
    expect(replaced.body).toMatchObject({ events_delivered: [CAEP_SESSION_REVOKED] });
    expect(replaced.body).not.toHaveProperty('description');
    expect((await http('GET', `${streams('status')}?stream_id=${id}`, { headers: auth() })).body).toEqual({
      stream_id: id,
      status: 'enabled',
    });
    expect(
      (await http('POST', streams('status'), { headers: auth(), json: { stream_id: id, status: 'paused', reason: 'maintenance' } })).body,
    ).toEqual({ stream_id: id, status: 'paused', reason: 'maintenance' });

    const other = await createApp(stack, 'stranger');
    expect((await http('GET', `${streams('streams')}?stream_id=${id}`, { headers: bearer(other.token) })).body).toMatchObject({
      reason_code: 'ssf_stream_not_found',
    });
    expect(
      (
        await http('POST', streams('streams'), {
          headers: auth(),
          json: { ...body, delivery: { method: 'urn:ietf:rfc:8936', endpoint_url: receiver.url } },
        })
      ).body,
    ).toMatchObject({
      reason_code: 'ssf_delivery_method_unsupported',
      detail: { field: 'delivery.method' },
    });
    expect(
      (
        await http('POST', streams('streams'), {
          headers: auth(),
          json: { ...body, delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: 'http://10.0.0.1/events' } },
        })
      ).body,
    ).toMatchObject({
      detail: { field: 'delivery.endpoint_url' },
    });
    expect((await http('POST', streams('streams'), { headers: auth(), json: { ...body, delivery: null } })).status).toBe(400);
    expect((await http('DELETE', `${streams('streams')}?stream_id=${id}`, { headers: auth() })).status).toBe(204);
    expect((await http('DELETE', `${streams('streams')}?stream_id=${id}`, { headers: auth() })).status).toBe(404);
    expect((await http('GET', `${streams('status')}?stream_id=nope`, { headers: auth() })).status).toBe(422);
    expect((await http('GET', streams('streams'))).status).toBe(401);
  });

  it("pushes a signed verification event with the receiver's Authorization header, retrying after a failure", async () => {
    const created = await http('POST', streams('streams'), {
      headers: auth(),
      json: {
        delivery: { method: 'urn:ietf:rfc:8935', endpoint_url: receiver.url, authorization_header: 'Bearer receiver-secret' },
        events_requested: [CAEP_SESSION_REVOKED, CAEP_TOKEN_CLAIMS_CHANGE],
      },
    });
    const id = created.body.stream_id as string;
    receiver.answers.push(503);
    expect((await http('POST', streams('verify'), { headers: auth(), json: { stream_id: id, state: 'are-you-there' } })).status).toBe(204);
    const database = stack.process.us.app.get(DataSource);
    await waitFor(async () => {
      const rows = (await database.query(`SELECT attempts, last_status_code FROM webhooks.ssf_deliveries WHERE stream_id = $1`, [
        id,
      ])) as Array<{ attempts: number; last_status_code: number }>;
      return rows[0]?.attempts === 1 ? rows[0] : undefined;
    });
    // The first attempt failed with 503: the next one is due 30 s later (on the region's clock).
    clock.advance(31_000);
    const set = await waitFor(() => receiver.sets.find((s) => s.claims.events?.[SSF_VERIFICATION]), 15_000);
    expect(set.header).toMatchObject({ typ: 'secevent+jwt', alg: 'EdDSA', kid: 'oap-us-v1' });
    expect(set.headers['content-type']).toBe('application/secevent+jwt');
    expect(set.headers.authorization).toBe('Bearer receiver-secret');
    expect(set.claims).toMatchObject({
      iss: us,
      aud: app.id,
      sub_id: { format: 'opaque', id },
      events: { [SSF_VERIFICATION]: { state: 'are-you-there' } },
    });
    expect(receiver.rejected).toEqual([]);
  });

  it('a revoked grant reaches the SSF receiver, the webhook subscriber and svc-verify in every region in under 30 s', async () => {
    await createAuthority(us, app, agentId);
    const hook = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
      headers: auth(),
      json: { url: hookUrl, events: ['grant.revoked'] },
    });
    expect(hook.status).toBe(201);
    const counterparties = {
      us: await createApp(stack, 'counterparty-us'),
      eu: await createApp(stack, 'counterparty-eu', 'eu'),
      ap: await stack.process.ap.app
        .get(CreateApplication)
        .execute(CreateApplicationCommand.create({ name: 'counterparty-ap', environment: 'development' }))
        .then((c) => ({ id: c.application.id, token: c.apiToken })),
    };
    const granted = await requestGrant(
      us,
      app,
      key,
      grantBody(agentId, key, { valid_until: new Date(clock.now().getTime() + 3600_000).toISOString() }),
      { now: clock.now() },
    );
    expect(granted.status).toBe(201);
    const grantId = granted.body.grant_id as string;
    const receipt = granted.body.grant_attestation as string;

    const started = Date.now();
    const revoked = await http('POST', `${us}/api/v1/oap/revocations`, {
      headers: { ...auth(), 'idempotency-key': randomUUID() },
      json: { grant_id: grantId, reason: 'lost device' },
    });
    expect(revoked.status).toBe(201);
    const reached: Record<string, number> = {};
    await Promise.all([
      waitFor(() => receiver.sets.find((s) => (s.claims.sub_id as { id?: string } | undefined)?.id === grantId), 30_000).then((set) => {
        reached.ssf_receiver = set.at - started;
        expect(set.claims).toMatchObject({
          iss: us,
          aud: app.id,
          sub_id: { format: 'opaque', id: grantId },
          events: { [CAEP_SESSION_REVOKED]: { event_timestamp: expect.any(Number), initiating_entity: 'admin' } },
        });
      }),
      waitFor(
        () => webhooks.find((w) => w.body.event === 'grant.revoked' && (w.body.data as { grant_id?: string }).grant_id === grantId),
        30_000,
      ).then((w) => {
        reached.webhook = w.at - started;
        expect(w.body.data).toMatchObject({ grant_id: grantId, reason: 'lost device' });
      }),
      ...(['us', 'eu', 'ap'] as const).map((region) =>
        waitFor(async () => {
          const res = await http('POST', `${stack.url[region]}/.well-known/svc-verify`, {
            headers: bearer(counterparties[region].token),
            json: { receipt },
          });
          return res.body.valid === false && res.body.reason_code === 'grant_revoked' ? Date.now() : undefined;
        }, 30_000).then((at) => {
          reached[`svc_verify_${region}`] = at - started;
        }),
      ),
    ]);
    const slowest = Math.max(...Object.values(reached));
    process.stdout.write(
      `revocation propagation: slowest ${slowest} ms (${Object.entries(reached)
        .map(([where, ms]) => `${where} ${ms} ms`)
        .join(', ')})\n`,
    );
    expect(slowest).toBeLessThan(30_000);
  });

  it('pushes token-claims-change when an authority is revoked, and holds SETs while a stream is paused', async () => {
    const authorityId = await createAuthority(us, app, agentId);
    const [stream] = (await http<Array<{ stream_id: string }>>('GET', streams('streams'), { headers: auth() })).body;
    await http('POST', streams('status'), { headers: auth(), json: { stream_id: stream!.stream_id, status: 'paused' } });
    const revoked = await http('POST', `${us}/api/v1/authorities/${authorityId}/revoke`, { headers: auth(), json: { reason: 'done' } });
    expect(revoked.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.sets.find((s) => (s.claims.sub_id as { id?: string } | undefined)?.id === authorityId)).toBeUndefined();
    await http('POST', streams('status'), { headers: auth(), json: { stream_id: stream!.stream_id, status: 'enabled' } });
    const set = await waitFor(
      () => receiver.sets.find((s) => (s.claims.sub_id as { id?: string } | undefined)?.id === authorityId),
      15_000,
    );
    expect(set.claims.events).toEqual({
      [CAEP_TOKEN_CLAIMS_CHANGE]: {
        event_timestamp: expect.any(Number),
        claims: { oap_authority_status: 'revoked', oap_agent_id: agentId },
      },
    });
  });
});
