import { BusConnection, type DeliveredEvent } from '@svc/bus';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import type { ReceiptDocument } from '@svc/receipts';
import { http, waitFor, type HttpResult } from '@svc/testing';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { SessionDecisionsConsumer } from '@svc/consent-records';

type Json = Record<string, unknown>;

const ORIGIN = 'http://localhost:4577';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const digest = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * Spec: What the service does 1–4 (every completed decision issues a receipt; the service is the
 * system of record), Decision session, Consent lifecycle, receipt `collection_channel` (hosted,
 * embedded) and `delivery_mode`. A consent decision made in a decision session becomes a consent
 * record (consent status, withdrawal, receipt) like one captured any other way.
 */
describe('consent records of decision sessions', () => {
  const clock = new FakeClock('2026-06-10T09:00:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string; pk: string };
  let flowId: string;
  let db: DataSource;
  /** Every event published in the region, as a consumer receives it (for redelivery). */
  const published: DeliveredEvent[] = [];
  const sessions: Record<string, { token: string; recordId: string }> = {};

  const status = (externalId: string) =>
    http<{ purposes: Json[] }>('GET', `${us}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${externalId}`, {
      headers: auth(app.token),
    });
  const record = (id: string) => http('GET', `${us}/api/v1/consent_records/${id}`, { headers: auth(app.token) });
  const receipt = (id: string) => http('GET', `${us}/api/v1/consent_receipts/${id}`, { headers: auth(app.token) });
  const move = (token: string, action: string, extra: Json = {}) =>
    http('POST', `${us}/api/v1/decisions/${token}/transitions`, { json: { action, ...extra } });
  const sessionRecordRows = async (token: string) =>
    (await db.query(
      `SELECT id, collection_channel, idempotency_key FROM consent_records.records WHERE application_id = $1 AND idempotency_key = $2`,
      [app.id, `session:${digest(token)}`],
    )) as Array<{
      id: string;
      collection_channel: string;
    }>;

  /** Mints a consent session, walks the standard path and completes (or declines) it. */
  async function decide(mint: { headers: Record<string, string>; json: Json }, outcome: 'complete' | 'decline'): Promise<string> {
    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: mint.headers,
      json: { kind: 'consent', flow_id: flowId, ...mint.json },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.session_token as string;
    expect((await move(token, 'sign_in')).status).toBe(200);
    expect((await move(token, 'start_checks')).status).toBe(200);
    expect((await move(token, 'review_terms')).status).toBe(200);
    clock.advance(1_000);
    const last = await move(token, outcome);
    expect(last.status).toBe(200);
    expect(last.body.status).toBe(outcome === 'complete' ? 'fulfilled' : 'expired');
    return token;
  }

  /** The person's consent status once their session's record is written. */
  async function statusOnceRecorded(externalId: string): Promise<Json[]> {
    return waitFor(async () => {
      const res = await status(externalId);
      return res.status === 200 && res.body.purposes.length > 0 ? res.body.purposes : undefined;
    });
  }

  async function frozenReceipt(recordId: string, until: (res: HttpResult) => boolean = () => true): Promise<HttpResult> {
    return waitFor(async () => {
      const res = await receipt(recordId);
      return res.status === 200 && until(res) ? res : undefined;
    });
  }

  beforeAll(async () => {
    stack = await startRegions('session_records', { clock, regions: ['us'] });
    us = stack.url.us;
    db = stack.process.us.app.get(DataSource);
    const bus = stack.process.us.app.get(BusConnection);
    const subscription = bus.nc.subscribe(`${stack.prefix}.us.evt.>`);
    void (async () => {
      for await (const msg of subscription) {
        published.push({
          id: msg.headers?.get('Nats-Msg-Id') ?? '',
          subject: msg.subject,
          eventType: msg.headers?.get('Svc-Event-Type') ?? '',
          data: msg.data,
          deliveryCount: 1,
        });
      }
    })();
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Session shop', environment: 'development' }));
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
        name: 'Membership',
        locale: 'en',
        presentation: { title: 'Join the club', description: 'What we do with your details' },
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter', mechanism: 'consent' },
          { key: 'research', label: 'Product research', description: 'Occasional surveys', mechanism: 'consent' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token) })).status).toBe(200);
  });
  afterAll(() => stack?.close());

  it('a completed redirect session yields a hosted record: the consent status shows its purposes granted', async () => {
    const token = await decide({ headers: auth(app.token), json: { delivery_mode: 'redirect', principal_id: 'ada-1815' } }, 'complete');
    const purposes = await statusOnceRecorded('ada-1815');
    expect(purposes.map((p) => [p.flow_id, p.purpose, p.status])).toEqual([
      [flowId, 'newsletter', 'granted'],
      [flowId, 'research', 'granted'],
    ]);
    const recordId = purposes[0]!.record_id as string;
    const stored = await record(recordId);
    expect(stored.body).toMatchObject({
      status: 'active',
      flow_version: 1,
      subject: { external_id: 'ada-1815', email: null },
      collection_channel: 'hosted',
      captured_at: '2026-06-10T09:00:01.000Z',
      idempotency_key: `session:${digest(token)}`,
      expires_at: '2027-06-10T09:00:01.000Z',
      evidence: { principal_binding: 'api_token' },
    });
    expect(JSON.stringify(stored.body)).not.toContain(token);
    sessions.redirect = { token, recordId };
  });

  it("an embedded session (person asserted by the application's server) yields an embedded record; a popup one a hosted record", async () => {
    const assertion = await http('POST', `${us}/api/v1/decisions/principal_assertions`, {
      headers: auth(app.token),
      json: { principal_id: 'grace-1906', flow_id: flowId },
    });
    expect(assertion.status).toBe(201);
    const embedded = await decide(
      {
        headers: { 'x-publishable-key': app.pk, origin: ORIGIN },
        json: { delivery_mode: 'embed', embed_origin: ORIGIN, principal_assertion: assertion.body.principal_assertion },
      },
      'complete',
    );
    const grace = await statusOnceRecorded('grace-1906');
    expect(grace.map((p) => p.status)).toEqual(['granted', 'granted']);
    expect((await record(grace[0]!.record_id as string)).body).toMatchObject({
      collection_channel: 'embedded',
      evidence: { principal_binding: 'principal_assertion' },
    });
    sessions.embed = { token: embedded, recordId: grace[0]!.record_id as string };

    const popup = await decide({ headers: auth(app.token), json: { delivery_mode: 'popup', principal_id: 'alan-1912' } }, 'complete');
    const alan = await statusOnceRecorded('alan-1912');
    expect((await record(alan[0]!.record_id as string)).body.collection_channel).toBe('hosted');
    sessions.popup = { token: popup, recordId: alan[0]!.record_id as string };
  });

  it('a declined session yields a record with every consent purpose declined', async () => {
    const token = await decide({ headers: auth(app.token), json: { delivery_mode: 'popup', principal_id: 'lin-1' } }, 'decline');
    const purposes = await statusOnceRecorded('lin-1');
    expect(purposes.map((p) => [p.purpose, p.decision, p.status])).toEqual([
      ['newsletter', 'declined', 'declined'],
      ['research', 'declined', 'declined'],
    ]);
    expect((await record(purposes[0]!.record_id as string)).body).toMatchObject({ collection_channel: 'hosted', status: 'active' });
    sessions.declined = { token, recordId: purposes[0]!.record_id as string };
  });

  it("each record gets a receipt with collection_channel hosted or embedded and the session's delivery_mode", async () => {
    const expected = {
      redirect: ['hosted', 'redirect'],
      embed: ['embedded', 'embed'],
      popup: ['hosted', 'popup'],
      declined: ['hosted', 'popup'],
    } as const;
    for (const [name, [channel, mode]] of Object.entries(expected)) {
      const res = await frozenReceipt(sessions[name]!.recordId);
      const document = res.body as unknown as ReceiptDocument;
      expect([name, document.extensions]).toEqual([
        name,
        expect.objectContaining({
          collection_channel: channel,
          delivery_mode: mode,
          consent_flow_id: flowId,
          captured_at: expect.any(String),
        }),
      ]);
    }
    const granted = (await receipt(sessions.redirect!.recordId)).body as unknown as ReceiptDocument;
    expect(granted.pii_processing.purposes.map((p) => p.purpose_id)).toEqual(['newsletter', 'research']);
    expect(granted.event[0]).toMatchObject({ event_state: 'consent given', event_time: '2026-06-10T09:00:01.000Z' });
    const declined = (await receipt(sessions.declined!.recordId)).body as unknown as ReceiptDocument;
    expect(declined.pii_processing.purposes).toEqual([]);
    expect(declined.event[0]).toMatchObject({ event_state: 'notice acknowledged' });
  });

  it('revoking the session withdraws its record wholly: by the application as the organisation, by the person in their own records', async () => {
    clock.advance(60_000);
    const byApp = await http('POST', `${us}/api/v1/decisions/${sessions.redirect!.token}/revoke`, { headers: auth(app.token) });
    expect(byApp.status).toBe(200);
    const ada = await waitFor(async () => {
      const purposes = (await status('ada-1815')).body.purposes;
      return purposes.every((p) => p.status === 'withdrawn') ? purposes : undefined;
    });
    expect(ada.map((p) => [p.purpose, p.withdrawal_channel, p.withdrawn_at, p.record_status])).toEqual([
      ['newsletter', 'organisation', '2026-06-10T09:01:04.000Z', 'withdrawn'],
      ['research', 'organisation', '2026-06-10T09:01:04.000Z', 'withdrawn'],
    ]);
    const adaReceipt = await frozenReceipt(sessions.redirect!.recordId, (res) => res.headers.get('x-svc-receipt-status') === 'withdrawn');
    expect((adaReceipt.body as unknown as ReceiptDocument).event.at(-1)).toMatchObject({
      event_state: 'consent withdrawn',
      event_channel: 'organisation',
    });

    expect((await move(sessions.embed!.token, 'revoke')).status).toBe(200);
    const grace = await waitFor(async () => {
      const purposes = (await status('grace-1906')).body.purposes;
      return purposes.every((p) => p.status === 'withdrawn') ? purposes : undefined;
    });
    expect(grace.map((p) => p.withdrawal_channel)).toEqual(['own_records', 'own_records']);
  });

  it('redelivery of the session events creates nothing twice', async () => {
    const consumer = stack.process.us.app.get(SessionDecisionsConsumer);
    const tokens = Object.values(sessions).map((s) => s.token);
    const ours = published.filter(
      (e) =>
        ['consent_session.granted', 'consent_session.denied', 'consent_session.revoked'].includes(e.eventType) &&
        tokens.some((t) => Buffer.from(e.data).includes(Buffer.from(t))),
    );
    expect(ours.map((e) => e.eventType).sort()).toEqual([
      'consent_session.denied',
      'consent_session.granted',
      'consent_session.granted',
      'consent_session.granted',
      'consent_session.revoked',
      'consent_session.revoked',
    ]);
    const count = async () =>
      (
        await db.query(
          `SELECT (SELECT count(*) FROM consent_records.records WHERE application_id = $1)::int AS records, (SELECT count(*) FROM consent_records.withdrawals)::int AS withdrawals`,
          [app.id],
        )
      )[0];
    const before = await count();
    expect(before).toEqual({ records: 4, withdrawals: 2 });
    for (const event of ours) expect(await consumer.handle({ ...event, deliveryCount: 2 })).toBe(false);
    expect(await count()).toEqual(before);
    for (const token of tokens) expect(await sessionRecordRows(token)).toHaveLength(1);
  });

  it('a later session of the same person replaces the earlier record; revoking the earlier session leaves the later one standing', async () => {
    const first = await decide({ headers: auth(app.token), json: { delivery_mode: 'redirect', principal_id: 'mary-1867' } }, 'complete');
    const firstRecord = (await statusOnceRecorded('mary-1867'))[0]!.record_id as string;
    const second = await decide({ headers: auth(app.token), json: { delivery_mode: 'embed', principal_id: 'mary-1867' } }, 'complete');
    const secondRecord = await waitFor(async () => (await sessionRecordRows(second))[0]?.id);
    expect((await record(secondRecord)).body).toMatchObject({
      previous_record_id: firstRecord,
      collection_channel: 'embedded',
      status: 'active',
    });
    expect((await record(firstRecord)).body.status).toBe('superseded');
    const before = published.length;
    expect((await http('POST', `${us}/api/v1/decisions/${first}/revoke`, { headers: auth(app.token) })).status).toBe(200);
    const revoked = await waitFor(() => published.slice(before).find((e) => e.eventType === 'consent_session.revoked'));
    const consumer = stack.process.us.app.get(SessionDecisionsConsumer);
    // Applied by the running consumer (or now): either way the later record keeps speaking for her.
    await consumer.handle({ ...revoked, deliveryCount: 2 });
    await waitFor(
      async () =>
        (
          await db.query(`SELECT 1 FROM consent_records.inbox WHERE consumer = 'consent-records-session-decisions' AND message_id = $1`, [
            revoked.id,
          ])
        ).length === 1,
    );
    const mary = (await status('mary-1867')).body.purposes;
    expect(mary.map((p) => [p.record_id, p.status])).toEqual([
      [secondRecord, 'granted'],
      [secondRecord, 'granted'],
    ]);
    expect(
      await db.query(`SELECT count(*)::int AS n FROM consent_records.withdrawals WHERE record_id = ANY($1)`, [[firstRecord, secondRecord]]),
    ).toEqual([{ n: 0 }]);
  });

  it('a session whose person the server never bound leaves no record', async () => {
    const before = published.length;
    const token = await decide({ headers: auth(app.token), json: { delivery_mode: 'redirect' } }, 'complete');
    const granted = await waitFor(() =>
      published.slice(before).find((e) => e.eventType === 'consent_session.granted' && Buffer.from(e.data).includes(Buffer.from(token))),
    );
    const consumer = stack.process.us.app.get(SessionDecisionsConsumer);
    expect(await consumer.handle({ ...granted, deliveryCount: 2 })).toBe(false);
    expect(await sessionRecordRows(token)).toEqual([]);
  });
});
