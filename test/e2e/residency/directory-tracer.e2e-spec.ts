import { randomBytes } from 'node:crypto';
import { BusConnection } from '@svc/bus';
import { regionStreamName } from '@svc/contracts';
import { TEST_NATS_URL, http, waitFor, type HttpResult } from '@svc/testing';
import { connect, type NatsConnection, type Subscription } from 'nats';
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
import { startRegions, type TestRegions } from '../support/regions';

type Json = Record<string, unknown>;

jest.setTimeout(180_000);

/**
 * Issue 18 item 2 (spec: "What the service does" 7): only minimized status crosses regions. Every
 * personal field of the consent and agent stories carries a marker; a tap on the bus sees every
 * message of every region's directory subject and of every request/reply another region answers,
 * and the test keeps every 421/307 body of requests sent to the wrong region. None holds a
 * marker, while eu still answers whether the us person holds an active consent for a purpose.
 */
describe('the cross-border directory carries no personal data', () => {
  let stack: TestRegions;
  let us: string;
  let eu: string;
  let app: TestApp;
  let euApp: TestApp;
  let flowId: string;
  let tap: NatsConnection;
  let key: AgentKey;
  const crossRegion: Array<{ subject: string; bytes: Buffer; reply?: string }> = [];
  const wrongRegionBodies: Array<{ status: number; text: string }> = [];
  const mark = randomBytes(5).toString('hex');
  const marker = `zq${mark}`;
  const email = `zoe.quill.${marker}@example.com`;
  const externalId = `ext-${marker}`;
  const sessionPrincipal = `principal-${marker}`;
  const agentPrincipal = `agent-principal-${marker}`;
  const note = `free text ${marker}`;
  const forwardedIp = `203.0.113.${parseInt(mark.slice(0, 2), 16) % 250}`;
  const markers = [marker, email, externalId, sessionPrincipal, agentPrincipal, note, forwardedIp];

  function collect(subscription: Subscription): void {
    void (async () => {
      for await (const msg of subscription) {
        const headers = msg.headers ? [...msg.headers.keys()].map((k) => `${k}: ${msg.headers!.values(k).join(',')}`).join('\n') : '';
        crossRegion.push({ subject: msg.subject, reply: msg.reply, bytes: Buffer.concat([Buffer.from(msg.data), Buffer.from(headers)]) });
      }
    })();
  }

  const record = (subject: Json, decision: 'granted' | 'declined', idempotencyKey: string): Promise<HttpResult> =>
    http('POST', `${us}/api/v1/consent_records`, {
      headers: { ...bearer(app.token), 'x-forwarded-for': forwardedIp },
      json: {
        flow_id: flowId,
        subject,
        decisions: { news: { decision, default_checked: false, mandatory: false } },
        captured_at: new Date(Date.now() - 60_000).toISOString(),
        idempotency_key: idempotencyKey,
      },
    });

  const lookup = (base: string, token: string, subject: Json, purpose = 'news'): Promise<HttpResult> =>
    http('POST', `${base}/api/v1/cross_border/consent_status`, {
      headers: bearer(token),
      json: { application_id: app.id, purpose, subject },
    });

  async function wrongRegion(method: string, url: string, json?: unknown, token = euApp.token): Promise<HttpResult> {
    const res = await http(method, url, { headers: bearer(token), ...(json === undefined ? {} : { json }) });
    wrongRegionBodies.push({ status: res.status, text: res.text });
    return res;
  }

  beforeAll(async () => {
    stack = await startRegions('directory_tracer', { regions: ['us', 'eu'], env: { DIRECTORY_KEY: randomBytes(32).toString('base64') } });
    us = stack.url.us;
    eu = stack.url.eu;
    // Everything that can cross: each region's directory subject, every request/reply subject of
    // each region (another region's RpcClient.tryCallInRegion calls them), and the reply inboxes.
    tap = await connect({ servers: TEST_NATS_URL, name: 'directory-tap' });
    collect(tap.subscribe(`${stack.prefix}.*.evt.directory.>`));
    collect(tap.subscribe(`${stack.prefix}.*.rpc.>`));
    collect(tap.subscribe('_INBOX.>'));
    await tap.flush();

    app = await createApp(stack, 'Directory shop', 'us');
    euApp = await createApp(stack, 'Directory partner', 'eu');
    key = await newAgentKey();
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: bearer(app.token),
      json: {
        name: 'Letters',
        locale: 'en',
        presentation: { title: 'Letters', description: note },
        purposes: [{ key: 'news', label: 'News', description: note }],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: bearer(app.token) })).status).toBe(200);
  });

  afterAll(async () => {
    await tap?.drain();
    await stack?.close();
  });

  it('answers in eu whether the us person holds an active consent, from minimized status only', async () => {
    // The consent story: a Record API record, a decision session of a bound person, a withdrawal.
    expect((await record({ email, external_id: externalId }, 'granted', `dir-${mark}-1`)).status).toBe(201);
    const minted = await http('POST', `${us}/api/v1/decisions`, {
      headers: bearer(app.token),
      json: { kind: 'consent', flow_id: flowId, delivery_mode: 'redirect', principal_id: sessionPrincipal },
    });
    expect(minted.status).toBe(201);
    for (const action of ['sign_in', 'start_checks', 'review_terms', 'complete']) {
      expect(
        (await http('POST', `${us}/api/v1/decisions/${minted.body.session_token as string}/transitions`, { json: { action } })).status,
      ).toBe(200);
    }

    const byExternalId = await waitFor(async () => {
      const res = await lookup(eu, euApp.token, { external_id: externalId });
      return res.status === 200 && res.body.status === 'active' ? res : undefined;
    });
    expect(byExternalId.body).toEqual({
      object: 'cross_border_status',
      subject_ref: expect.stringMatching(/^[0-9a-f]{64}$/),
      application_id: app.id,
      purpose: 'news',
      status: 'active',
      active_count: 1,
      initials: 'ZQ',
      home_country: 'US',
      as_of: expect.any(String),
    });
    const bySession = await waitFor(async () => {
      const res = await lookup(eu, euApp.token, { external_id: sessionPrincipal });
      return res.status === 200 && res.body.status === 'active' ? res : undefined;
    });
    expect(bySession.body).toMatchObject({ status: 'active', home_country: 'US', initials: '' });
    // The home region answers from the same directory; a stranger is unknown, not an error.
    expect((await lookup(us, app.token, { external_id: externalId })).body).toMatchObject({
      status: 'active',
      subject_ref: byExternalId.body.subject_ref,
    });
    expect((await lookup(eu, euApp.token, { external_id: `nobody-${mark}` })).body).toMatchObject({
      status: 'unknown',
      active_count: 0,
      home_country: null,
    });

    // A newer record declining the purpose withdraws it; eu learns the status, not the reason.
    expect((await record({ email, external_id: externalId }, 'declined', `dir-${mark}-2`)).status).toBe(201);
    const withdrawn = await waitFor(async () => {
      const res = await lookup(eu, euApp.token, { external_id: externalId });
      return res.body.status === 'inactive' ? res : undefined;
    });
    expect(withdrawn.body).toMatchObject({ status: 'inactive', active_count: 0 });
  });

  it('runs the agent story across regions and refuses the us person in eu without a trace of them', async () => {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, { principal_id: agentPrincipal });
    const granted = await requestGrant(
      us,
      app,
      key,
      grantBody(agentId, key, { valid_until: new Date(Date.now() + 3_600_000).toISOString() }),
      { now: new Date() },
    );
    expect(granted.status).toBe(201);
    // A counterparty in eu checks the receipt: eu asks the grant's home region over the bus.
    const verified = await http('POST', `${eu}/.well-known/svc-verify`, {
      headers: bearer(euApp.token),
      json: { receipt: granted.body.grant_attestation },
    });
    expect(verified.body).toMatchObject({ valid: true });

    // Writes naming the us person (or us resources) sent to eu: refused before anything is stored.
    const usPerson = 'usr_us_abcdefghijklmnopqrst';
    const refusals = [
      await wrongRegion('POST', `${eu}/api/v1/consent_records`, {
        flow_id: flowId,
        subject: { email, external_id: externalId },
        decisions: { news: { decision: 'granted', default_checked: false, mandatory: false } },
        captured_at: new Date().toISOString(),
      }),
      await wrongRegion('POST', `${eu}/api/v1/decisions`, {
        kind: 'consent',
        flow_id: flowId,
        principal_id: sessionPrincipal,
        delivery_mode: 'redirect',
      }),
      await wrongRegion('POST', `${eu}/api/v1/authorities`, {
        agent_id: agentId,
        principal_id: agentPrincipal,
        purposes: ['shopping'],
        valid_until: '2027-01-01T00:00:00Z',
      }),
      await wrongRegion('POST', `${eu}/api/v1/decisions`, { kind: 'consent', principal_id: usPerson, delivery_mode: 'redirect', note }),
      await wrongRegion('POST', `${eu}/api/v1/applications/${euApp.id}/person_links`, { person_id: usPerson, subject: { email } }),
      await wrongRegion('GET', `${eu}/api/v1/applications/${app.id}/consent_status?subject[external_id]=${externalId}`),
      await wrongRegion('GET', `${eu}/api/v1/agents/${agentId}/capabilities`),
    ];
    expect(refusals.map((r) => r.status)).toEqual([421, 421, 421, 421, 421, 421, 307]);
    for (const refusal of refusals.slice(0, 6)) expect(refusal.body.home_country).toBe('US');

    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await tap.flush();
    // The inboxes also carry each region's own JetStream deliveries to its own durables (the record
    // event, with the flow's wording, reaching the us receipts): those stay in the region. Any
    // delivery to a durable the region's process did not open is crossing, and is kept.
    const ownDurables = new Map(
      Object.entries(stack.process).map(
        ([region, running]) => [regionStreamName(stack.prefix, region), running.app.get(BusConnection).durables] as const,
      ),
    );
    const staysInRegion = (m: { reply?: string }): boolean => {
      const ack = /^\$JS\.ACK\.([^.]+)\.([^.]+)\./.exec(m.reply ?? '');
      return ack !== null && (ownDurables.get(ack[1]!)?.has(ack[2]!) ?? false);
    };
    const crossing = crossRegion.filter((m) => !staysInRegion(m));
    expect(crossing.length).toBeLessThan(crossRegion.length);
    const subjects = new Set(crossing.map((m) => m.subject));
    expect(subjects).toContain(`${stack.prefix}.us.evt.directory.subject_status`);
    expect([...subjects].some((s) => s.startsWith(`${stack.prefix}.us.rpc.oap.grant_status`))).toBe(true);
    const leaks = [
      ...crossing.filter((m) => markers.some((value) => m.bytes.includes(value))).map((m) => m.subject),
      ...wrongRegionBodies.filter((b) => markers.some((value) => b.text.includes(value))).map((b) => `${b.status} ${b.text}`),
    ];
    expect(crossing.length).toBeGreaterThan(5);
    expect(leaks).toEqual([]);
  });
});
