import { CreateApplication, CreateApplicationCommand, EscalationNotices, ReceiptEmails } from '@svc/decision-gateway';
import { BusConnection, type DeliveredEvent } from '@svc/bus';
import { http, waitFor } from '@svc/testing';
import { DataSource } from 'typeorm';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { createAgent, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from '../oap-authorizer/support';
import { heldMailsTo, waitForMail, type HeldMail } from './notification-mail';

const ORIGIN = 'http://localhost:4566';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });
const TTL_SECONDS = 600;

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The one approval URL a notice carries (same in the text and the HTML part). */
function approvalUrlOf(mail: HeldMail, base: string): string {
  const pattern = new RegExp(`${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/approvals/[A-Za-z0-9_.-]+`, 'g');
  const inText = [...new Set(mail.text?.match(pattern) ?? [])];
  const inHtml = [...new Set(mail.html?.match(pattern) ?? [])];
  expect(inText).toHaveLength(1);
  expect(inHtml).toEqual(inText);
  return inText[0]!;
}

/** Neither part loads anything: no images, no remote resources, no tracking. */
function expectNoTracking(mail: HeldMail): void {
  expect(mail.html).toBeDefined();
  expect(mail.html).not.toMatch(/<img|<link|<script|url\(|src=/i);
}

/**
 * Issue 25 item 6: notifications over SMTP, read from a real SMTP sink (MailDev). The receipt
 * email after a consent record or a committed capture (none with suppress_receipt), and the
 * escalation notice with a signed approval URL (JWS, iss_role approval_url_signer) that opens the
 * approval page until the deadline and answers 410 after it.
 */
describe('notifications over SMTP', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  let mail: MailDev;
  let stack: TestRegions;
  let us: string;
  let app: TestApp & { pk: string };
  let flowId: string;
  let key: AgentKey;
  let db: DataSource;
  const published: DeliveredEvent[] = [];

  let lastCookie = '';

  async function signUp(email: string, name: string, locale: string): Promise<string> {
    const start = await http('POST', `${us}/people/email_codes`, {
      json: { purpose: 'sign_up', email, display_name: name, home_country: 'US', locale, time_zone: 'UTC' },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${us}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    lastCookie = (verified.headers.get('set-cookie') ?? '').split(';')[0]!;
    return (verified.body.person as { id: string }).id;
  }

  async function recordConsent(email: string, key: string): Promise<string> {
    const res = await http('POST', `${us}/api/v1/consent_records`, {
      headers: auth(app.token),
      json: {
        flow_id: flowId,
        subject: { email },
        decisions: {
          newsletter: { decision: 'granted', default_checked: false, mandatory: false },
          research: { decision: 'declined', default_checked: false, mandatory: false },
        },
        captured_at: new Date(clock.now().getTime() - 60_000).toISOString(),
        idempotency_key: key,
      },
    });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body.id as string;
  }

  async function commitCapture(email: string, suppress: boolean): Promise<string> {
    const field = (purpose: string, checked: boolean) => ({
      purpose,
      control: 'checkbox',
      checked,
      default_checked: false,
      required: false,
    });
    const capture = await http('POST', `${us}/capture/v1/captures`, {
      headers: { 'x-publishable-key': app.pk, origin: ORIGIN },
      json: { flow_id: flowId, fields: [field('newsletter', true), field('research', false)] },
    });
    expect(capture.status).toBe(201);
    const committed = await http('POST', `${us}/api/v1/decisions/${capture.body.capture_token as string}/authorize`, {
      headers: auth(app.token),
      json: { subject: { email }, suppress_receipt: suppress },
    });
    expect(committed.status).toBe(200);
    return committed.body.record_id as string;
  }

  beforeAll(async () => {
    mail = await startMailDev();
    stack = await startRegions('notifications', {
      clock,
      regions: ['us'],
      env: { SMTP_URL: mail.smtpUrl, MAIL_FROM: 'Notices <no-reply@example.test>' },
    });
    us = stack.url.us;
    db = stack.process.us.app.get(DataSource);
    const subscription = stack.process.us.app.get(BusConnection).nc.subscribe(`${stack.prefix}.us.evt.>`);
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
        name: 'Signup form',
        locale: 'en-GB',
        presentation: { title: 'Stay in touch', description: 'What we do with your email address' },
        policy_url: 'https://acme.example/privacy',
        purposes: [
          { key: 'newsletter', label: 'Newsletter', description: 'A monthly letter' },
          { key: 'research', label: 'Product research', description: 'Occasional surveys' },
        ],
        consent_duration: 'P1Y',
      },
    });
    expect(flow.status).toBe(201);
    flowId = flow.body.id as string;
    expect((await http('POST', `${us}/api/v1/flows/${flowId}/activate`, { headers: auth(app.token), json: {} })).status).toBeLessThan(300);
    key = await newAgentKey();
  });

  afterAll(async () => {
    await stack?.close();
    await mail?.stop();
  });

  describe('receipt email', () => {
    it('after a Record API record: to the supplied email, text and HTML, receipt and withdrawal links, granted purposes by label', async () => {
      const recordId = await recordConsent('reader@example.test', 'notify-reader-1');
      const receipt = await waitForMail(mail, 'reader@example.test', /consent receipt/);
      expect(receipt.subject).toBe('Your consent receipt from Acme Ltd');
      expect(receipt.text).toContain(`${us}/people/receipts/${recordId}`);
      expect(receipt.text).toContain(`${us}/people/account`);
      expect(receipt.text).toContain('- Newsletter');
      expect(receipt.text).not.toContain('Product research');
      expect(receipt.html).toContain(`href="${us}/people/receipts/${recordId}"`);
      expect(receipt.html).toContain(`href="${us}/people/account"`);
      expect(receipt.headers['content-language']).toBe('en');
      expectNoTracking(receipt);
    });

    it('in the language of the person the address belongs to (fr)', async () => {
      await signUp('camille@example.test', 'Camille Martin', 'fr-FR');
      await recordConsent('Camille@Example.test', 'notify-camille-1');
      const receipt = await waitForMail(mail, 'camille@example.test', /reçu de consentement/);
      expect(receipt.subject).toBe('Votre reçu de consentement de Acme Ltd');
      expect(receipt.text).toContain('Vous avez accepté');
      expect(receipt.headers['content-language']).toBe('fr');
      expectNoTracking(receipt);
    });

    it('after a committed capture; none with suppress_receipt; exactly once when the event is delivered again', async () => {
      const suppressedId = await commitCapture('quiet@example.test', true);
      const sentId = await commitCapture('loud@example.test', false);
      const receipt = await waitForMail(mail, 'loud@example.test', /consent receipt/);
      expect(receipt.text).toContain(`/people/receipts/${sentId}`);
      // The suppressed record's event was published first and is never sent (no inbox mark either); the other is marked once.
      const events = await waitFor(() => {
        const ours = published.filter(
          (e) => e.eventType === 'consent.recorded' && [suppressedId, sentId].some((id) => Buffer.from(e.data).includes(Buffer.from(id))),
        );
        return ours.length === 2 ? ours : undefined;
      });
      await waitFor(async () => {
        const [row] = await db.query(
          `SELECT count(*)::int AS n FROM gateway.inbox WHERE consumer = 'decision-gateway-receipt-emails' AND message_id = ANY($1::text[])`,
          [events.map((e) => e.id)],
        );
        return row.n === 1 ? true : undefined;
      });
      expect(await heldMailsTo(mail, 'quiet@example.test')).toEqual([]);
      // Redelivery sends nothing twice.
      const emails = stack.process.us.app.get(ReceiptEmails);
      for (const event of events) expect(await emails.handle({ ...event, deliveryCount: 2 })).toBe(false);
      expect(await heldMailsTo(mail, 'loud@example.test')).toHaveLength(1);
      expect(await heldMailsTo(mail, 'quiet@example.test')).toEqual([]);
    });
  });

  it('without VAPID keys, device links say push is off and a phone cannot register (503), never a silent success', async () => {
    await signUp('dora@example.test', 'Dora Phone', 'en-US');
    const started = await http('POST', `${us}/api/v1/device_links`, { headers: { cookie: lastCookie }, json: {} });
    expect(started.status).toBe(201);
    expect(started.body.push).toEqual({ enabled: false, vapid_public_key: null });
    const subscription = { endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    const registered = await http('POST', `${us}/api/v1/device_links/registrations`, {
      json: { link_code: started.body.link_code, subscription },
    });
    expect([registered.status, registered.body.reason_code]).toEqual([503, 'push_not_configured']);
    const unknown = await http('POST', `${us}/api/v1/device_links/registrations`, { json: { link_code: 'x'.repeat(43), subscription } });
    expect([unknown.status, unknown.body.reason_code]).toEqual([410, 'link_code_invalid']);
    const page = await http('GET', `${us}/people/devices/link`);
    expect(page.text).toContain('"vapidPublicKey":null');
  });

  describe('escalation notice', () => {
    let notice: HeldMail;
    let frenchNotice: HeldMail;
    let escalationId: string;
    let deadline: string;

    it('emails each reachable approver a signed approval URL (JWS, iss_role approval_url_signer, exp = the deadline)', async () => {
      const adaId = await signUp('ada@example.test', 'Ada Lovelace', 'en-US');
      const linked = await http('POST', `${us}/api/v1/applications/${app.id}/person_links`, {
        headers: auth(app.token),
        json: { person_id: adaId, subject: { external_id: 'approver-ada' } },
      });
      expect(linked.status).toBe(201);
      const claudeId = await signUp('claude@example.test', 'Claude Bernard', 'fr-FR');

      const agentId = await createAgent(us, app, { manifest: true });
      await createAuthority(us, app, agentId, {
        escalation_bounds: {
          always: true,
          quorum_type: 'majority',
          approvers: ['approver-ada', claudeId, 'nobody-known'],
          approval_ttl_seconds: TTL_SECONDS,
        },
      });
      const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
      expect(grant.status).toBe(202);
      escalationId = grant.body.escalation_id as string;
      deadline = grant.body.approval_ttl_at as string;

      notice = await waitForMail(mail, 'ada@example.test', /^Approval needed/);
      expect(notice.subject).toBe('Approval needed: Acme Ltd');
      expect(notice.text).toContain('pay 25.50 EUR');
      expectNoTracking(notice);
      frenchNotice = await waitForMail(mail, 'claude@example.test', /^Approbation requise/);
      expect(frenchNotice.headers['content-language']).toBe('fr');
      expectNoTracking(frenchNotice);

      const url = approvalUrlOf(notice, us);
      const [header, payload] = url.split('/').at(-1)!.split('.') as [string, string, string];
      expect(decodeSegment(header)).toMatchObject({
        alg: 'EdDSA',
        typ: 'oap-approval-url+jwt',
        kid: expect.stringMatching(/^oap-us-v\d+$/),
      });
      const claims = decodeSegment(payload);
      expect(claims).toMatchObject({
        iss: us,
        iss_role: 'approval_url_signer',
        sub: 'approver-ada',
        purpose: 'escalation_approval',
        escalation_id: escalationId,
        exp: Math.floor(Date.parse(deadline) / 1000),
      });
      // The session token itself never travels in the link.
      expect(JSON.stringify(claims)).not.toContain(grant.body.session_token as string);
      expect(decodeSegment(approvalUrlOf(frenchNotice, us).split('/').at(-1)!.split('.')[1]!)).toMatchObject({
        sub: claudeId,
        escalation_id: escalationId,
      });
    });

    it('the signed URL opens the approval page of that escalation', async () => {
      const page = await http('GET', approvalUrlOf(notice, us));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('data-detail="actions"');
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    });

    it('exactly once: a redelivered event sends nothing again', async () => {
      const event = published.find(
        (e) => e.eventType === 'oap.approval_requested' && Buffer.from(e.data).includes(Buffer.from(escalationId)),
      )!;
      expect(event).toBeDefined();
      expect(await stack.process.us.app.get(EscalationNotices).handle({ ...event, deliveryCount: 2 })).toBe(0);
      expect((await heldMailsTo(mail, 'ada@example.test')).filter((m) => /^Approval needed/.test(m.subject))).toHaveLength(1);
    });

    it('a tampered or foreign token is 404, never the page', async () => {
      const url = approvalUrlOf(notice, us);
      const [head, payload, signature] = url.split('/').at(-1)!.split('.') as [string, string, string];
      const forged = Buffer.from(JSON.stringify({ ...decodeSegment(payload), sub: 'someone-else' })).toString('base64url');
      expect((await http('GET', `${us}/approvals/${head}.${forged}.${signature}`)).status).toBe(404);
      expect((await http('GET', `${us}/approvals/not-a-token`)).status).toBe(404);
    });

    it('stops working at the deadline: 410 with an expired page', async () => {
      const url = approvalUrlOf(notice, us);
      clock.set(new Date(Date.parse(deadline) - 2_000).toISOString());
      expect((await http('GET', url)).status).toBe(200);
      clock.set(new Date(Date.parse(deadline) + 1_000).toISOString());
      const expired = await http('GET', url, { headers: { 'accept-language': 'fr' } });
      expect(expired.status).toBe(410);
      expect(expired.text).toContain('Ce lien a expiré');
      expect((await http('GET', approvalUrlOf(frenchNotice, us))).status).toBe(410);
    });
  });
});
