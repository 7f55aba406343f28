import { randomBytes } from 'node:crypto';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { TEST_NATS_URL, http, waitFor, LoopbackReceiver } from '@svc/testing';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { startRegions, type TestRegions } from './support/regions';

type Json = Record<string, unknown>;

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

jest.setTimeout(120_000);

/**
 * Events carry references, not contact data: during a consent flow (Record API records, a later
 * record withdrawing a purpose, a decision session naming its person) a raw subscriber on every
 * subject of the region's bus — events, RPC, replies and JetStream deliveries — never sees the
 * person's email or the organisation's identifiers of them, while the webhook, the receipt and
 * the consent status (consumers holding the region key) still get them.
 */
describe('personal data on the bus', () => {
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string };
  let flowId: string;
  let tap: NatsConnection;
  const receiver = new LoopbackReceiver();
  const seen: Array<{ subject: string; bytes: Buffer }> = [];
  const unique = randomBytes(6).toString('hex');
  const email = `ada.${unique}@example.com`;
  const recordExternalId = `ada-ext-${unique}`;
  const sessionPrincipal = `grace-ext-${unique}`;

  function record(subject: Json, decisions: Record<string, 'granted' | 'declined'>, key: string) {
    return http('POST', `${us}/api/v1/consent_records`, {
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
  }

  function collect(subscription: Subscription): void {
    void (async () => {
      for await (const msg of subscription) {
        const headers = msg.headers ? [...msg.headers.keys()].map((k) => `${k}: ${msg.headers!.values(k).join(',')}`).join('\n') : '';
        seen.push({ subject: msg.subject, bytes: Buffer.concat([Buffer.from(msg.data), Buffer.from(headers)]) });
      }
    })();
  }

  beforeAll(async () => {
    await receiver.start();
    stack = await startRegions('pii_bus', { regions: ['us'] });
    us = stack.url.us;
    // An outsider's view: its own connection, every subject of the test's bus prefix, every reply inbox.
    tap = await connect({ servers: TEST_NATS_URL, name: 'pii-tap' });
    collect(tap.subscribe(`${stack.prefix}.>`));
    collect(tap.subscribe('_INBOX.>'));
    collect(tap.subscribe('$JS.>'));
    await tap.flush();

    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Bus privacy shop', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Membership',
        locale: 'en',
        presentation: { title: 'Join', description: 'What we do with your details' },
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'research', label: 'Research', description: 'Occasional surveys' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token) })).status).toBe(200);
    for (const event of ['consent.granted', 'consent.purpose_revoked']) {
      const res = await http('POST', `${us}/api/v1/applications/${app.id}/webhook_subscriptions`, {
        headers: auth(app.token),
        json: { url: receiver.url(`/${event}`), events: [event] },
      });
      expect(res.status).toBe(201);
    }
  });

  afterAll(async () => {
    await tap?.drain();
    await stack?.close();
    await receiver.close();
  });

  it('publishes no email or external id in clear, while the consumers that need them still receive them', async () => {
    const first = await record({ email, external_id: recordExternalId }, { newsletter: 'granted', research: 'granted' }, `pii-${unique}-1`);
    expect(first.status).toBe(201);
    const recordId = first.body.id as string;
    // A later record of the same person declines a purpose: consent.purpose_revoked for the first.
    expect(
      (await record({ email, external_id: recordExternalId }, { newsletter: 'declined', research: 'granted' }, `pii-${unique}-2`)).status,
    ).toBe(201);

    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: auth(app.token),
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'redirect', principal_id: sessionPrincipal },
    });
    expect(minted.status).toBe(201);
    const token = minted.body.session_token as string;
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      expect((await http('POST', `${us}/api/v1/decisions/${token}/transitions`, { json: { action } })).status).toBe(200);
    }

    // The consumers opened the sealed fields: the webhook names the subject, the receipt is frozen,
    // and the session's person has a consent record.
    const granted = await waitFor(() => receiver.on('/consent.granted').find((r) => (r.body.data as Json).record_id === recordId));
    expect((granted.body.data as Json).subject).toEqual({ email, external_id: recordExternalId });
    const sessionHook = await waitFor(() => receiver.on('/consent.granted').find((r) => (r.body.data as Json).session_token === token));
    expect((sessionHook.body.data as Json).user_identifier).toBe(sessionPrincipal);
    const withdrawn = await waitFor(() =>
      receiver.on('/consent.purpose_revoked').find((r) => (r.body.data as Json).record_id === recordId),
    );
    expect(withdrawn.body.data).toMatchObject({ subject_email: email, subject_external_id: recordExternalId, purpose: 'newsletter' });
    await waitFor(
      async () => (await http('GET', `${us}/api/v1/consent_receipts/${recordId}`, { headers: auth(app.token) })).status === 200,
    );
    await waitFor(async () => {
      const res = await http<{ purposes: Json[] }>(
        'GET',
        `${us}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${sessionPrincipal}`,
        { headers: auth(app.token) },
      );
      return res.status === 200 && res.body.purposes.length > 0;
    });
    await tap.flush();

    const eventSubjects = new Set(seen.map((m) => m.subject).filter((s) => s.startsWith(`${stack.prefix}.us.evt.`)));
    for (const type of ['consent.recorded', 'consent.purpose_revoked', 'consent_session.granted'])
      expect(eventSubjects).toContain(`${stack.prefix}.us.evt.${type}`);
    expect(seen.length).toBeGreaterThan(20);
    const leaks = seen
      .filter((m) => [email, recordExternalId, sessionPrincipal].some((value) => m.bytes.includes(value)))
      .map((m) => m.subject);
    expect(leaks).toEqual([]);
  });
});
