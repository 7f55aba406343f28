import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import canonicalize from 'canonicalize';
import { BusConnection, JetStreamServer, type DeliveredEvent } from '@svc/bus';
import { AuthorityChangedSchema, ConsentRecordedSchema, decodeSealedEvent } from '@svc/contracts';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { ResolveEscalation } from '@svc/oap-authorizer';
import { http, waitFor, type HttpResult } from '@svc/testing';
import { DataSource } from 'typeorm';
import { createAgent, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey } from '../oap-authorizer/support';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { AuthorityEvents, ConsentRecordEvents, type ReceiptDocument } from '@svc/receipts';
import { flipOneByte, naclVerify } from '@svc/receipts/testing';

type Json = Record<string, unknown>;
type Jwks = { keys: Array<Record<string, string>> };

const ORIGIN = 'http://localhost:4566';
const canonical = (value: unknown): string => canonicalize(value) as string;
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Spec: What the service does 3–4, Durable receipt schema svc-cr/2.13, Captured consent and
 * receipts. Issue 7: consent records and authorities get their receipts through the bus (receipts
 * consumes consent-records' and oap-authorizer's events), shortly after the record commits.
 */
describe('receipts frozen from consent records and authorities (event intake)', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let stack: TestRegions;
  let us: string;
  let app: { id: string; token: string; pk: string };
  let flowId: string;
  let db: DataSource;
  let validate: ValidateFunction;
  let jwks: Jwks;
  let agentKey: AgentKey;
  /** Every event published in the region, as a consumer receives it (for redelivery). */
  const published: DeliveredEvent[] = [];

  const consentReceipt = (id: string, query = '') =>
    http('GET', `${us}/api/v1/consent_receipts/${id}${query}`, { headers: auth(app.token) });
  const authorizationReceipt = (id: string, query = '') =>
    http('GET', `${us}/api/v1/authorization_receipts/${id}${query}`, { headers: auth(app.token) });
  const eventStates = (res: HttpResult) => (res.body as unknown as ReceiptDocument).event.map((e) => e.event_state);
  const receiptRows = async (recordId: string) => {
    const [frozen] = await db.query(`SELECT count(*)::int AS n FROM receipts.frozen_receipts WHERE record_id = $1`, [recordId]);
    const [transitions] = await db.query(`SELECT count(*)::int AS n FROM receipts.receipt_transitions WHERE record_id = $1`, [recordId]);
    return { frozen: frozen.n as number, transitions: transitions.n as number };
  };
  const expectSchemaValid = (document: unknown) => {
    const valid = validate(document);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  };

  /** canonical, dpv and signed: each validates against the published schema; signed verifies with tweetnacl and fails with one flipped byte. */
  async function expectEveryFlavor(get: (id: string, query?: string) => Promise<HttpResult>, id: string): Promise<void> {
    const canonicalRes = await get(id);
    expect(canonicalRes.status).toBe(200);
    expect(canonicalRes.text).toBe(canonical(canonicalRes.body));
    expectSchemaValid(canonicalRes.body);
    const dpv = await get(id, '?flavor=dpv');
    expect(dpv.status).toBe(200);
    expect(dpv.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expectSchemaValid(dpv.body.record);
    const signed = await get(id, '?flavor=signed');
    expect(signed.status).toBe(200);
    const signedBody = signed.body as { record: ReceiptDocument; signature: { jws: string; jwks_uri: string } };
    expectSchemaValid(signedBody.record);
    expect(signedBody.record).toEqual(canonicalRes.body);
    expect(signedBody.signature.jwks_uri).toBe(`${us}/.well-known/jwks.json`);
    expect(naclVerify(signed.text, jwks, canonical)).toBe(true);
    expect(naclVerify(flipOneByte(signed.text, `"record_id":"${id.slice(0, 10)}`), jwks, canonical)).toBe(false);
  }

  async function recordConsent(subject: Json, decisions: Record<string, 'granted' | 'declined'>, key: string): Promise<string> {
    const res = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject,
        decisions: Object.fromEntries(
          Object.entries(decisions).map(([purpose, decision]) => [purpose, { decision, default_checked: false, mandatory: false }]),
        ),
        captured_at: new Date(clock.now().getTime() - 60_000).toISOString(),
        idempotency_key: key,
      },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    stack = await startRegions('receipt_intake', { clock, regions: ['us'] });
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
      .execute(CreateApplicationCommand.create({ name: 'Acme Ltd', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken, pk: created.publishableKey };
    const origin = await http('POST', `${us}/api/v1/applications/${app.id}/allowed_origins`, {
      headers: auth(app.token),
      json: { allowed_origin: { origin: ORIGIN } },
    });
    expect(origin.status).toBe(201);
    const flow = await http('POST', `${us}/api/v1/flows`, {
      headers: auth(app.token),
      json: {
        name: 'Signup form',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch', description: 'What we do with your email address' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'research', label: 'Product research', description: 'Occasional surveys' },
          { key: 'offers', label: 'Partner offers', description: 'Offers from our partners' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    const schema = await http('GET', `${us}/schemas/receipt/v2/record.json`);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(schema.body);
    jwks = (await http('GET', `${us}/.well-known/jwks.json`)).body as unknown as Jwks;
    agentKey = await newAgentKey();
  });
  afterAll(() => stack?.close());

  describe('consent records (Record API)', () => {
    let recordId: string;

    it('answers 404 receipt_not_found until the receipt is frozen; events published meanwhile are applied when the consumer runs again', async () => {
      const release = await stack.process.us.app.get(JetStreamServer).hold('receipts-consent-records');
      try {
        recordId = await recordConsent(
          { email: 'Ada.Lovelace@Example.com', external_id: 'ada-1815' },
          { newsletter: 'granted', research: 'granted', offers: 'declined' },
          'intake-ada-1',
        );
        await waitFor(() => published.some((e) => e.eventType === 'consent.recorded'));
        const early = await consentReceipt(recordId);
        expect(early.status).toBe(404);
        expect(early.body).toEqual({ message: 'Receipt not found', reason_code: 'receipt_not_found', detail: { record_id: recordId } });
      } finally {
        await release();
      }
      const res = await waitFor(async () => {
        const current = await consentReceipt(recordId);
        return current.status === 200 ? current : undefined;
        // A delivery lost to the stopped consumer's pull comes back after the ack wait (30 s).
      }, 45_000);
      expect(res.headers.get('x-svc-receipt-status')).toBe('active');
    });

    it('the receipt states the record truthfully: granted purposes only, the flow version as notice, a pseudonymous principal, the application as controller', async () => {
      const res = await consentReceipt(recordId);
      const document = res.body as unknown as ReceiptDocument;
      expect(document.record).toEqual({
        schema_version: 'svc-cr/2.13',
        conforms_to: 'ISO/IEC TS 27560:2023',
        record_id: recordId,
        record_type: 'consent_record',
        pii_principal_id: expect.stringMatching(/^psn_[A-Za-z0-9_-]{43}$/),
      });
      expect(res.text.toLowerCase()).not.toContain('lovelace');
      expect(res.text).not.toContain('ada-1815');
      expect(document.pii_processing).toMatchObject({
        language: 'en-GB',
        jurisdiction: 'unspecified',
        privacy_notice: { reference: `${flowId}@v1`, hash: expect.stringMatching(/^[0-9a-f]{64}$/), url: 'https://acme.example/privacy' },
        purposes: [
          { purpose_id: 'newsletter', label: 'Newsletter', lawful_basis: 'consent' },
          { purpose_id: 'research', label: 'Product research', lawful_basis: 'consent' },
        ],
      });
      expect(document.party_identification).toEqual([
        { party_id: app.id, party_name: 'Acme Ltd', party_role: 'controller', party_type: 'organization', provenance: 'display_name' },
      ]);
      expect(document.event).toEqual([
        {
          event_time: '2026-03-04T10:29:00.000Z',
          validity_duration: 'P1Y',
          entity_id: document.record.pii_principal_id,
          event_type: 'explicit',
          event_state: 'consent given',
        },
      ]);
      expect(document.extensions).toEqual({
        collection_channel: 'controller_attested',
        consent_flow_id: flowId,
        captured_at: '2026-03-04T10:29:00.000Z',
        recorded_at: '2026-03-04T10:30:00.000Z',
      });
      await expectEveryFlavor(consentReceipt, recordId);
    });

    it('the same person (same email, any case) keeps one pseudonym; a later record refers to its predecessor', async () => {
      clock.advance(1_000);
      const laterId = await recordConsent(
        { email: 'ada.lovelace@example.com' },
        { newsletter: 'granted', research: 'granted', offers: 'granted' },
        'intake-ada-2',
      );
      const later = await waitFor(async () => {
        const current = await consentReceipt(laterId);
        return current.status === 200 ? (current.body as unknown as ReceiptDocument) : undefined;
      });
      const first = (await consentReceipt(recordId)).body as unknown as ReceiptDocument;
      expect(later.record.pii_principal_id).toBe(first.record.pii_principal_id);
      expect(later.event[0]).toMatchObject({ event_state: 'consent given', record_reference: recordId });
      const stranger = await recordConsent(
        { email: 'grace@example.com' },
        { newsletter: 'granted', research: 'declined', offers: 'declined' },
        'intake-grace-1',
      );
      const strangers = await waitFor(async () => {
        const current = await consentReceipt(stranger);
        return current.status === 200 ? (current.body as unknown as ReceiptDocument) : undefined;
      });
      expect(strangers.record.pii_principal_id).not.toBe(first.record.pii_principal_id);
      recordId = laterId;
    });

    it('a purpose withdrawal, then the whole withdrawal, appear as consent withdrawn events with their channel; the derived status follows', async () => {
      clock.advance(1_000);
      const one = await http('POST', `${us}/api/v1/consent_records/${recordId}/withdrawals`, {
        headers: auth(app.token),
        json: { purpose: 'newsletter', channel: 'receipt_link' },
      });
      expect(one.status).toBe(201);
      const partial = await waitFor(async () => {
        const current = await consentReceipt(recordId);
        return current.headers.get('x-svc-receipt-status') === 'partially_withdrawn' ? current : undefined;
      });
      const principal = (partial.body as unknown as ReceiptDocument).record.pii_principal_id;
      expect((partial.body as unknown as ReceiptDocument).event.at(-1)).toEqual({
        event_time: '2026-03-04T10:30:02.000Z',
        entity_id: principal,
        event_type: 'explicit',
        event_state: 'consent withdrawn',
        purpose_id: 'newsletter',
        event_channel: 'receipt_link',
      });
      clock.advance(1_000);
      const whole = await http('POST', `${us}/api/v1/consent_records/${recordId}/withdrawals`, {
        headers: auth(app.token),
        json: { channel: 'organisation' },
      });
      expect(whole.status).toBe(201);
      const withdrawn = await waitFor(async () => {
        const current = await consentReceipt(recordId);
        return current.headers.get('x-svc-receipt-status') === 'withdrawn' ? current : undefined;
      });
      expect(eventStates(withdrawn)).toEqual(['consent given', 'consent withdrawn', 'consent withdrawn']);
      const last = (withdrawn.body as unknown as ReceiptDocument).event.at(-1)!;
      expect(last).toMatchObject({ event_state: 'consent withdrawn', event_channel: 'organisation', entity_id: app.id });
      expect(last).not.toHaveProperty('purpose_id');
      await expectEveryFlavor(consentReceipt, recordId);
    });

    it('redelivery of the same events creates nothing twice (inbox)', async () => {
      const consumer = stack.process.us.app.get(ConsentRecordEvents);
      const ours = published.filter((e) => e.eventType.startsWith('consent.') && Buffer.from(e.data).includes(Buffer.from(recordId)));
      expect(ours.map((e) => e.eventType).sort()).toEqual(['consent.purpose_revoked', 'consent.record_revoked', 'consent.recorded']);
      // consent.recorded carries what its receipt states (the version's wording, the controller's name and jurisdiction).
      const recorded = decodeSealedEvent(
        ConsentRecordedSchema,
        ours.find((e) => e.eventType === 'consent.recorded')!.data,
        stack.process.us.app.get(BusConnection).personalData,
      );
      expect(recorded.notice).toMatchObject({
        locale: 'en-GB',
        title: 'Stay in touch',
        policyUrl: 'https://acme.example/privacy',
        consentDuration: 'P1Y',
      });
      expect(recorded.notice?.purposes.map((p) => p.key)).toEqual(['newsletter', 'research', 'offers']);
      expect(recorded.application).toMatchObject({ name: 'Acme Ltd', jurisdiction: '' });
      const before = await receiptRows(recordId);
      expect(before).toEqual({ frozen: 1, transitions: 2 });
      for (const event of ours) expect(await consumer.handle({ ...event, deliveryCount: 2 })).toBe(false);
      expect(await receiptRows(recordId)).toEqual(before);
      const inbox = await db.query(
        `SELECT count(*)::int AS n FROM receipts.inbox WHERE consumer = 'receipts-consent-records' AND message_id = ANY($1::text[])`,
        [ours.map((e) => e.id)],
      );
      expect(inbox[0].n).toBe(3);
    });
  });

  describe('captured consent', () => {
    it('a committed capture yields a receipt with collection_channel form_capture_browser', async () => {
      const field = (purpose: string, checked: boolean) => ({
        purpose,
        control: 'checkbox',
        checked,
        default_checked: false,
        required: false,
      });
      const capture = await http('POST', `${us}/capture/v1/captures`, {
        headers: { 'x-publishable-key': app.pk, origin: ORIGIN },
        json: { flow_id: flowId, fields: [field('newsletter', true), field('research', false), field('offers', false)] },
      });
      expect(capture.status).toBe(201);
      clock.advance(2_000);
      const committed = await http('POST', `${us}/api/v1/decisions/${capture.body.capture_token as string}/authorize`, {
        headers: auth(app.token),
        json: { subject: { email: 'capture@example.com' }, suppress_receipt: true },
      });
      expect(committed.status).toBe(200);
      const recordId = committed.body.record_id as string;
      const res = await waitFor(async () => {
        const current = await consentReceipt(recordId);
        return current.status === 200 ? current : undefined;
      });
      const document = res.body as unknown as ReceiptDocument;
      expect(document.extensions).toMatchObject({ collection_channel: 'form_capture_browser', consent_flow_id: flowId });
      expect(document.extensions).not.toHaveProperty('rendering_evidence');
      expect(document.pii_processing.purposes.map((p) => p.purpose_id)).toEqual(['newsletter']);
      expect(res.text).not.toContain('capture@example.com');
      await expectEveryFlavor(consentReceipt, recordId);
    });
  });

  describe('authorities', () => {
    let authorityId: string;

    it('an authority gets its authorization receipt (scope audit:verify) from authority.created', async () => {
      const agentId = await createAgent(us, { id: app.id, token: app.token }, { manifest: true });
      authorityId = await createAuthority(us, { id: app.id, token: app.token }, agentId, {
        principal_id: 'ada.lovelace@example.com',
        escalation_bounds: { always: true, quorum_type: 'all', approvers: ['user_1'] },
        cooling_off_seconds: 60,
      });
      const res = await waitFor(async () => {
        const current = await authorizationReceipt(authorityId);
        return current.status === 200 ? current : undefined;
      });
      expect(res.headers.get('x-svc-receipt-status')).toBe('pending');
      const document = res.body as unknown as ReceiptDocument;
      expect(document.record).toEqual({
        schema_version: 'svc-cr/2.13',
        conforms_to: 'ISO/IEC TS 27560:2023',
        record_id: authorityId,
        record_type: 'authorization_record',
        pii_principal_id: expect.stringMatching(/^psn_[A-Za-z0-9_-]{43}$/),
      });
      expect(res.text).not.toContain('lovelace');
      expect(document.pii_processing).toMatchObject({ language: 'und', purposes: [{ purpose_id: 'shopping', label: 'shopping' }] });
      expect(document.party_identification).toEqual([
        { party_id: app.id, party_name: 'Acme Ltd', party_role: 'controller', party_type: 'organization', provenance: 'display_name' },
        { party_id: agentId, party_name: 'shopper', party_role: 'agent', party_type: 'software_agent', provenance: 'declared' },
      ]);
      expect(document.authority).toMatchObject({
        scope_bounds: { allowed: ['payments:*'] },
        escalation_bounds: { always: true, quorum_type: 'all', approvers: ['user_1'] },
        sequence_bounds: { max_per_minute: 1000, max_continuation_depth: 2 },
        valid_from: '2026-03-04T10:30:05.000Z',
        valid_until: '2027-01-01T00:00:00.000Z',
        cooling_off: 'PT60S',
        withdrawal_method: `${us}/api/v1/authorities/${authorityId}/revoke`,
      });
      expect(document.authority).not.toHaveProperty('oap_sequence_bounds');
      expect(document.event).toEqual([
        {
          event_time: '2026-03-04T10:30:05.000Z',
          entity_id: document.record.pii_principal_id,
          event_type: 'explicit',
          event_state: 'authority granted',
        },
      ]);
      await expectEveryFlavor(authorizationReceipt, authorityId);
      const unscoped = await http('POST', `${us}/api/v1/applications/${app.id}/api_tokens`, {
        headers: auth(app.token),
        json: { name: 'no scopes', scopes: [] },
      });
      const forbidden = await http('GET', `${us}/api/v1/authorization_receipts/${authorityId}`, {
        headers: auth((unscoped.body.api_token as { token: string }).token),
      });
      expect([forbidden.status, forbidden.body.reason_code]).toEqual([403, 'insufficient_scope']);
    });

    it('an escalation and its outcome appear as approval events with the escalation id', async () => {
      clock.advance(61_000);
      const agentId = ((await authorizationReceipt(authorityId)).body as unknown as ReceiptDocument).party_identification[1]!.party_id;
      const escalated = await requestGrant(us, { id: app.id, token: app.token }, agentKey, grantBody(agentId, agentKey), {
        now: clock.now(),
      });
      expect(escalated.status).toBe(202);
      const escalationId = escalated.body.escalation_id as string;
      await waitFor(async () => eventStates(await authorizationReceipt(authorityId)).includes('approval requested'));
      clock.advance(1_000);
      await stack.process.us.app.get(ResolveEscalation).execute(escalationId, 'denied');
      const res = await waitFor(async () => {
        const current = await authorizationReceipt(authorityId);
        return eventStates(current).includes('approval denied') ? current : undefined;
      });
      const events = (res.body as unknown as ReceiptDocument).event;
      expect(events.slice(1)).toEqual([
        {
          event_time: '2026-03-04T10:31:06.000Z',
          entity_id: agentId,
          event_type: 'explicit',
          event_state: 'approval requested',
          approval_id: escalationId,
        },
        {
          event_time: '2026-03-04T10:31:07.000Z',
          entity_id: events[0]!.entity_id,
          event_type: 'explicit',
          event_state: 'approval denied',
          approval_id: escalationId,
        },
      ]);
      expect(res.headers.get('x-svc-receipt-status')).toBe('active');
      expectSchemaValid(res.body);
    });

    it('suspension, resumption and revocation appear as transitions; the derived status follows', async () => {
      const step = async (action: 'suspend' | 'resume' | 'revoke', status: string) => {
        clock.advance(1_000);
        const moved = await http('POST', `${us}/api/v1/authorities/${authorityId}/${action}`, { headers: auth(app.token), json: {} });
        expect(moved.status).toBeLessThan(300);
        return waitFor(async () => {
          const current = await authorizationReceipt(authorityId);
          return current.headers.get('x-svc-receipt-status') === status ? current : undefined;
        });
      };
      await step('suspend', 'suspended');
      await step('resume', 'active');
      const revoked = await step('revoke', 'revoked');
      expect(eventStates(revoked)).toEqual([
        'authority granted',
        'approval requested',
        'approval denied',
        'authority suspended',
        'authority resumed',
        'authority revoked',
      ]);
      expect((revoked.body as unknown as ReceiptDocument).event.at(-1)).toEqual({
        event_time: '2026-03-04T10:31:10.000Z',
        entity_id: app.id,
        event_type: 'explicit',
        event_state: 'authority revoked',
        event_channel: 'organisation',
      });
      await expectEveryFlavor(authorizationReceipt, authorityId);
    });

    it('redelivery of authority events creates nothing twice (inbox)', async () => {
      const consumer = stack.process.us.app.get(AuthorityEvents);
      const ours = published.filter((e) => e.eventType.startsWith('authority.') && Buffer.from(e.data).includes(Buffer.from(authorityId)));
      expect(ours.map((e) => e.eventType)).toEqual(['authority.created', 'authority.suspended', 'authority.resumed', 'authority.revoked']);
      const created = decodeSealedEvent(AuthorityChangedSchema, ours[0]!.data, stack.process.us.app.get(BusConnection).personalData);
      expect(created.application).toMatchObject({ name: 'Acme Ltd', jurisdiction: '' });
      const before = await receiptRows(authorityId);
      expect(before).toEqual({ frozen: 1, transitions: 5 });
      for (const event of ours) expect(await consumer.handle({ ...event, deliveryCount: 2 })).toBe(false);
      expect(await receiptRows(authorityId)).toEqual(before);
    });
  });
});
