import { BusConnection, type DeliveredEvent } from '@svc/bus';
import { decodeEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor, type HttpResult } from '@svc/testing';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { SessionDecisionsConsumer } from '@svc/consent-records';

type Json = Record<string, unknown>;

const ORIGIN = 'http://localhost:4578';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Spec: Authentication rules 2–3 (a publishable key only creates sessions, cannot modify
 * resources; browser calls come from an allowed origin). Issue 14 item 1: the publishable key is
 * public, so whoever holds it must not be able to record consent for a person of their choosing,
 * nor flip a person's recorded refusal. Only the application's server binds the person: an
 * API-token mint naming them, or a single-use principal assertion its server obtained.
 */
describe('consent cannot be forged with the publishable key', () => {
  const clock = new FakeClock('2026-07-01T08:00:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string; pk: string };
  let flowId: string;
  let db: DataSource;
  const events: Array<{ type: string; payload: Json; delivered: DeliveredEvent }> = [];

  const browser = (origin: string | null = ORIGIN) => ({ 'x-publishable-key': app.pk, ...(origin !== null ? { origin } : {}) });
  const mint = (headers: Record<string, string>, json: Json) =>
    http('POST', `${us}/api/v1/decisions`, {
      headers,
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'embed', embed_origin: ORIGIN, ...json },
    });
  const move = (token: string, json: Json) => http('POST', `${us}/api/v1/decisions/${token}/transitions`, { json });
  const status = (externalId: string) =>
    http<{ purposes: Json[] }>('GET', `${us}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${externalId}`, {
      headers: auth(app.token),
    });
  const statuses = async (externalId: string) => (await status(externalId)).body.purposes.map((p) => [p.purpose, p.status]);
  const recordsOf = async (token: string): Promise<unknown[]> =>
    db.query(`SELECT id FROM consent_records.records WHERE application_id = $1 AND idempotency_key = $2`, [
      app.id,
      `session:${digest(token)}`,
    ]);
  const sessionEvent = (type: string, token: string) => events.find((e) => e.type === type && e.payload.sessionToken === token);

  /** The standard path to the end, as the probe drove it without a browser. */
  async function walk(token: string, last: 'complete' | 'decline' = 'complete'): Promise<HttpResult> {
    for (const action of ['sign_in', 'start_checks', 'review_terms']) expect((await move(token, { action })).status).toBe(200);
    const done = await move(token, { action: last });
    expect(done.status).toBe(200);
    return done;
  }

  /**
   * Hands the session's decision event to consent-records' session intake (as a redelivery, so the
   * outcome does not depend on whether the running consumer got there first): false = no record.
   */
  async function intake(type: string, token: string): Promise<boolean> {
    const event = await waitFor(() => sessionEvent(type, token));
    return stack.process.us.app.get(SessionDecisionsConsumer).handle({ ...event.delivered, deliveryCount: 2 });
  }

  beforeAll(async () => {
    stack = await startRegions('session_forgery', { clock, regions: ['us'] });
    us = stack.url.us;
    db = stack.process.us.app.get(DataSource);
    const bus = stack.process.us.app.get(BusConnection);
    const subscription = bus.nc.subscribe(`${stack.prefix}.us.evt.>`);
    void (async () => {
      for await (const msg of subscription) {
        const type = msg.headers?.get('Svc-Event-Type') ?? '';
        if (type !== 'consent_session.granted' && type !== 'consent_session.denied') continue;
        const delivered = {
          id: msg.headers?.get('Nats-Msg-Id') ?? '',
          subject: msg.subject,
          eventType: type,
          data: msg.data,
          deliveryCount: 1,
        };
        events.push({ type, payload: decodeEvent(type, msg.data, bus.personalData) as unknown as Json, delivered });
      }
    })();
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Forgery target', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken, pk: created.publishableKey };
    expect(
      (
        await http('POST', `${us}/api/v1/applications/${app.id}/allowed_origins`, {
          headers: auth(app.token),
          json: { allowed_origin: { origin: ORIGIN } },
        })
      ).status,
    ).toBe(201);
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Marketing',
        locale: 'en',
        presentation: { title: 'Stay in touch' },
        purposes: [
          { key: 'analytics', label: 'Analytics', mechanism: 'consent' },
          { key: 'newsletter', label: 'Newsletter', mechanism: 'consent' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token) })).status).toBe(200);
  });
  afterAll(() => stack?.close());

  it("refuses the probe's mint: principal_id with a publishable key (422 naming it), a foreign or missing Origin (403)", async () => {
    const named = await mint(browser(), { principal_id: 'victim-42' });
    expect([named.status, named.body.reason_code, (named.body.detail as Json).field]).toEqual([
      422,
      'principal_not_allowed_for_publishable_key',
      'principal_id',
    ]);
    const evil = await mint(browser('https://evil.example'), {});
    expect([evil.status, evil.body.reason_code]).toEqual([403, 'origin_not_allowed']);
    const noOrigin = await mint(browser(null), {});
    expect([noOrigin.status, noOrigin.body.reason_code]).toEqual([403, 'origin_not_allowed']);
    const alias = await http('POST', `${us}/api/v1/consent_sessions`, {
      headers: browser(null),
      json: { flow_id: flowId, embed_origin: ORIGIN, principal_id: 'victim-42' },
    });
    expect([alias.status, alias.body.reason_code]).toEqual([422, 'principal_not_allowed_for_publishable_key']);
  });

  it('a publishable-key session cannot be given a person on the page; completed unbound, it records nothing for anyone', async () => {
    const minted = await mint(browser(), {});
    expect(minted.status).toBe(201);
    const token = minted.body.session_token as string;
    const named = await move(token, { action: 'sign_in', principal_id: 'victim-42' });
    expect([named.status, named.body.reason_code, (named.body.detail as Json).field]).toEqual([
      422,
      'principal_not_settable',
      'principal_id',
    ]);
    const done = await walk(token);
    expect(done.body).toMatchObject({ status: 'fulfilled', outcome: 'granted' });

    // The outcome is still delivered to the application, marked unbound.
    const granted = await waitFor(() => sessionEvent('consent_session.granted', token));
    expect(granted.payload).toMatchObject({ userIdentifier: '', principalBinding: 'unbound' });
    const exchanged = await http('POST', `${us}/api/v1/decisions/${token}/exchange`, {
      headers: auth(app.token),
      json: { exchange_token: done.body.exchange_token },
    });
    expect(exchanged.body).toMatchObject({ outcome: 'granted', principal_id: null, principal_binding: 'unbound' });

    expect(await intake('consent_session.granted', token)).toBe(false);
    expect(await recordsOf(token)).toEqual([]);
    expect(await statuses('victim-42')).toEqual([]);
  });

  it("a forged session cannot flip a person's recorded refusal", async () => {
    const refused = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { external_id: 'bob-1', email: 'bob@example.com' },
        decisions: { analytics: { decision: 'declined' }, newsletter: { decision: 'declined' } },
        captured_at: '2026-07-01T07:00:00.000Z',
      },
    });
    expect(refused.status).toBe(201);
    expect(await statuses('bob-1')).toEqual([
      ['analytics', 'declined'],
      ['newsletter', 'declined'],
    ]);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await mint(browser(), { principal_id: 'bob-1' })).status).toBe(422);
      const minted = await mint(browser(), {});
      const token = minted.body.session_token as string;
      expect((await move(token, { action: 'sign_in', principal_id: 'bob-1' })).status).toBe(422);
      await walk(token);
      expect(await intake('consent_session.granted', token)).toBe(false);
      expect(await recordsOf(token)).toEqual([]);
    }
    expect(await statuses('bob-1')).toEqual([
      ['analytics', 'declined'],
      ['newsletter', 'declined'],
    ]);
  });

  it("legit: the application's server names the person (API token) or asserts them for its page; the records say how", async () => {
    const server = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'redirect', principal_id: 'ada-1' },
    });
    expect(server.status).toBe(201);
    await walk(server.body.session_token as string);
    const ada = await waitFor(async () => {
      const res = await status('ada-1');
      return res.body.purposes.length > 0 ? res.body.purposes : undefined;
    });
    expect(ada.map((p) => p.status)).toEqual(['granted', 'granted']);
    const adaRecord = await http('GET', `${us}/api/v1/consent_records/${ada[0]!.record_id as string}`, { headers: auth(app.token) });
    expect(adaRecord.body).toMatchObject({ subject: { external_id: 'ada-1' }, evidence: { principal_binding: 'api_token' } });

    // bob-1 himself, on the application's page, changes his mind: his server asserts him.
    const assertion = await http('POST', `${us}/api/v1/decisions/principal_assertions`, {
      headers: auth(app.token),
      json: { principal_id: 'bob-1', flow_id: flowId },
    });
    expect(assertion.status).toBe(201);
    const page = await mint(browser(), { principal_assertion: assertion.body.principal_assertion });
    expect(page.status).toBe(201);
    const token = page.body.session_token as string;
    await walk(token);
    expect((await waitFor(() => sessionEvent('consent_session.granted', token))).payload).toMatchObject({
      userIdentifier: 'bob-1',
      principalBinding: 'principal_assertion',
    });
    const bob = await waitFor(async () => {
      const res = await status('bob-1');
      return res.body.purposes.every((p) => p.status === 'granted') ? res.body.purposes : undefined;
    });
    const bobRecord = await http('GET', `${us}/api/v1/consent_records/${bob[0]!.record_id as string}`, { headers: auth(app.token) });
    expect(bobRecord.body).toMatchObject({
      collection_channel: 'embedded',
      subject: { external_id: 'bob-1' },
      evidence: { principal_binding: 'principal_assertion' },
    });

    // The assertion was single use: the page cannot start a second session for bob-1 with it.
    const replay = await mint(browser(), { principal_assertion: assertion.body.principal_assertion });
    expect([replay.status, replay.body.reason_code]).toEqual([403, 'principal_assertion_invalid']);
  });
});
