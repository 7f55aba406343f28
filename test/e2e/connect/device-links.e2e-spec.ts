import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createRequire } from 'node:module';
import { CreateApplication, CreateApplicationCommand } from '@svc/decision-gateway';
import { http, waitFor } from '@svc/testing';
import { toString as qrCodeSvg } from 'qrcode';
import webpush from 'web-push';
import { codeFor, mailsTo, startMailDev, type MailDev } from '../support/mail';
import { FakeClock, startRegions, type TestRegions } from '../support/regions';
import { createAgent, createAuthority, grantBody, newAgentKey, requestGrant, type AgentKey, type TestApp } from '../oap-authorizer/support';
import { heldMailsTo } from './notification-mail';
import { startPushService, type PushService, type ReceivedPush } from './push-service';

const ece = createRequire(__filename)('http_ece') as {
  decrypt(body: Buffer, params: { version: string; privateKey: ECDH; authSecret: Buffer }): Buffer;
};

/** A phone's push subscription: its own P-256 key pair and auth secret, on the fake push service. */
function phone(
  push: PushService,
  path: string,
): { ecdh: ECDH; auth: Buffer; subscription: { endpoint: string; keys: { p256dh: string; auth: string } } } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    subscription: {
      endpoint: `${push.origin}${path}`,
      keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    },
  };
}

/** Checks the VAPID `Authorization: vapid t=<JWT>, k=<key>` of a push (RFC 8292): ES256 by the configured key, for the push service's origin. */
function expectVapid(push: ReceivedPush, origin: string, vapidPublicKey: string, now: Date): void {
  const match = /^vapid t=([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+), k=([A-Za-z0-9_-]+)$/.exec(push.headers.authorization ?? '');
  expect(match).not.toBeNull();
  const [, header, payload, signature, key] = match as unknown as [string, string, string, string, string];
  expect(key).toBe(vapidPublicKey);
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ typ: 'JWT', alg: 'ES256' });
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { aud: string; sub: string; exp: number };
  expect(claims.aud).toBe(origin);
  expect(claims.sub).toBe('mailto:ops@example.test');
  expect(claims.exp).toBeGreaterThan(Math.floor(now.getTime() / 1000) - 24 * 3600);
  const raw = Buffer.from(key, 'base64url');
  const jwk = { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33, 65).toString('base64url') };
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  expect(ok).toBe(true);
}

/**
 * Issue 25 item 3: device links. A signed-in person links a phone with a one-time link code; the
 * phone registers its Web Push subscription; an escalation's approval request reaches it by an
 * encrypted (aes128gcm) push with VAPID auth and also appears in the inbox; links are listed and
 * revoked, and a revoked link gets no more pushes. The push service is a local HTTP server.
 */
describe('device links and Web Push', () => {
  const clock = new FakeClock('2026-03-04T10:30:00.000Z');
  const vapid = webpush.generateVAPIDKeys();
  let mail: MailDev;
  let push: PushService;
  let stack: TestRegions;
  let us: string;
  let app: TestApp;
  let key: AgentKey;
  let cookie: string;
  let personId: string;
  let linkId: string;
  let device: ReturnType<typeof phone>;
  /** A second person (a co-signer, and someone whose revocation attempt must fail). */
  let other: { cookie: string; personId: string };

  async function signUp(email: string): Promise<{ cookie: string; personId: string }> {
    const start = await http('POST', `${us}/people/email_codes`, {
      json: { purpose: 'sign_up', email, display_name: 'Ada Lovelace', home_country: 'US', locale: 'en-US', time_zone: 'UTC' },
    });
    expect(start.status).toBe(202);
    const code = await codeFor(mail, email, (await mailsTo(mail, email)).length || 1);
    const verified = await http('POST', `${us}/people/email_codes/verify`, { json: { challenge_id: start.body.challenge_id, code } });
    expect(verified.status).toBe(200);
    return { cookie: (verified.headers.get('set-cookie') ?? '').split(';')[0]!, personId: (verified.body.person as { id: string }).id };
  }

  async function escalate(approvers: string[]): Promise<string> {
    const agentId = await createAgent(us, app, { manifest: true });
    await createAuthority(us, app, agentId, {
      escalation_bounds: { always: true, quorum_type: 'all', approvers, approval_ttl_seconds: 600 },
    });
    const grant = await requestGrant(us, app, key, grantBody(agentId, key), { now: clock.now() });
    expect(grant.status).toBe(202);
    return grant.body.escalation_id as string;
  }

  beforeAll(async () => {
    mail = await startMailDev();
    push = await startPushService();
    stack = await startRegions('device_links', {
      clock,
      regions: ['us'],
      env: {
        SMTP_URL: mail.smtpUrl,
        MAIL_FROM: 'Notices <no-reply@example.test>',
        WEB_PUSH_VAPID_PUBLIC_KEY: vapid.publicKey,
        WEB_PUSH_VAPID_PRIVATE_KEY: vapid.privateKey,
        WEB_PUSH_SUBJECT: 'mailto:ops@example.test',
        WEB_PUSH_ENDPOINT_ORIGINS: push.origin,
      },
    });
    us = stack.url.us;
    const created = await stack.process.us.app
      .get(CreateApplication)
      .execute(CreateApplicationCommand.create({ name: 'Acme Ltd', environment: 'development' }));
    app = { id: created.application.id, token: created.apiToken };
    key = await newAgentKey();
    ({ cookie, personId } = await signUp('ada@example.test'));
  });

  afterAll(async () => {
    await stack?.close();
    await push?.close();
    await mail?.stop();
  });

  it('refuses anyone signed out (401) and another origin (403)', async () => {
    expect((await http('POST', `${us}/api/v1/device_links`, { json: {} })).status).toBe(401);
    expect((await http('GET', `${us}/api/v1/device_links`)).status).toBe(401);
    const foreign = await http('POST', `${us}/api/v1/device_links`, { headers: { cookie, origin: 'https://evil.example' }, json: {} });
    expect([foreign.status, foreign.body.reason_code]).toEqual([403, 'origin_not_allowed']);
  });

  it('links a phone: a one-time link code and URL from the inbox, then the phone registers its subscription with it', async () => {
    const started = await http('POST', `${us}/api/v1/device_links`, { headers: { cookie }, json: {} });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      device_link: { object: 'device_link', status: 'pending', device_name: null, push_service: null },
      link_code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      push: { enabled: true, vapid_public_key: vapid.publicKey },
      qr_svg: expect.stringMatching(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/),
    });
    const code = started.body.link_code as string;
    expect(started.body.link_url).toBe(`${us}/people/devices/link#code=${code}`);
    // The QR code the phone scans encodes exactly the link URL.
    expect(started.body.qr_svg).toBe(
      await qrCodeSvg(started.body.link_url as string, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
    );
    linkId = (started.body.device_link as { id: string }).id;
    expect(linkId).toMatch(/^dvl_us_[a-z2-7]{20}$/);

    const page = await http('GET', `${us}/inbox`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('id="device-links"');

    // The phone's page: the code stays in the fragment; the page carries the VAPID key and may register a service worker.
    const phonePage = await http('GET', `${us}/people/devices/link`);
    expect(phonePage.status).toBe(200);
    expect(phonePage.text).toContain(vapid.publicKey);
    expect(phonePage.headers.get('content-security-policy')).toContain("worker-src 'self'");
    const worker = await http('GET', `${us}/people/devices/sw.js`);
    expect([worker.status, worker.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);

    device = phone(push, '/push/ada-phone');
    const foreignEndpoint = await http('POST', `${us}/api/v1/device_links/registrations`, {
      json: { link_code: code, subscription: { ...device.subscription, endpoint: 'https://push.evil.example/x' } },
    });
    expect([foreignEndpoint.status, foreignEndpoint.body.reason_code]).toEqual([422, 'push_endpoint_not_allowed']);
    const registered = await http('POST', `${us}/api/v1/device_links/registrations`, {
      json: { link_code: code, device_name: "Ada's phone", subscription: device.subscription },
    });
    expect(registered.status).toBe(201);
    expect(registered.body.device_link).toMatchObject({
      id: linkId,
      status: 'active',
      device_name: "Ada's phone",
      push_service: push.origin,
    });
    expect(JSON.stringify(registered.body)).not.toContain(device.subscription.keys.auth);
    const again = await http('POST', `${us}/api/v1/device_links/registrations`, {
      json: { link_code: code, subscription: device.subscription },
    });
    expect([again.status, again.body.reason_code]).toEqual([410, 'link_code_invalid']);

    const list = await http('GET', `${us}/api/v1/device_links`, { headers: { cookie } });
    expect(list.status).toBe(200);
    expect((list.body.data as Array<{ id: string; status: string }>).map((l) => [l.id, l.status])).toEqual([[linkId, 'active']]);
  });

  it('an approval request reaches the linked phone by an encrypted push with VAPID auth, and appears in the inbox', async () => {
    const escalationId = await escalate([personId]);
    const received = await waitFor(() => push.received.find((p) => p.path === '/push/ada-phone'), 15_000);
    expect(received.method).toBe('POST');
    expect(received.headers['content-encoding']).toBe('aes128gcm');
    expect(received.headers['content-type']).toBe('application/octet-stream');
    expect(Number(received.headers.ttl)).toBeGreaterThan(0);
    expect(received.headers.urgency).toBe('high');
    expectVapid(received, push.origin, vapid.publicKey, clock.now());
    const message = JSON.parse(
      ece.decrypt(received.body, { version: 'aes128gcm', privateKey: device.ecdh, authSecret: device.auth }).toString('utf8'),
    ) as Record<string, unknown>;
    expect(message).toEqual({ type: 'approval_requested', reference: escalationId, url: `${us}/inbox` });

    const inbox = await http('GET', `${us}/inbox?kind=approval`, { headers: { cookie } });
    expect(inbox.text).toContain(escalationId);
    const listed = await http('GET', `${us}/api/v1/device_links`, { headers: { cookie } });
    expect((listed.body.data as Array<{ last_push_status: number }>)[0]!.last_push_status).toBe(201);
  });

  it('a signing request reaches the linked phone too, once the agreement commits', async () => {
    other = await signUp('grace@example.test');
    const document = { media_type: 'text/plain', content_base64: Buffer.from('We share the shed.', 'utf8').toString('base64') };
    const agreement = await http('POST', `${us}/api/v1/agreements`, {
      headers: { authorization: `Bearer ${app.token}` },
      json: {
        title: 'Shared garden shed',
        document,
        parties: [
          { person_id: personId, role: 'owner' },
          { person_id: other.personId, role: 'neighbour' },
        ],
      },
    });
    expect(agreement.status).toBe(201);
    const agreementId = agreement.body.id as string;
    const received = await waitFor(
      () =>
        push.received.find(
          (p) =>
            p.path === '/push/ada-phone' &&
            ece
              .decrypt(p.body, { version: 'aes128gcm', privateKey: device.ecdh, authSecret: device.auth })
              .toString('utf8')
              .includes(agreementId),
        ),
      15_000,
    );
    const message = JSON.parse(
      ece.decrypt(received.body, { version: 'aes128gcm', privateKey: device.ecdh, authSecret: device.auth }).toString('utf8'),
    ) as Record<string, unknown>;
    expect(message).toEqual({ type: 'signature_requested', reference: agreementId, url: `${us}/inbox` });
    expectVapid(received, push.origin, vapid.publicKey, clock.now());
  });

  it('revoked: no more pushes to that phone (the request still reaches the inbox and the email)', async () => {
    expect((await http('DELETE', `${us}/api/v1/device_links/${linkId}`, { headers: { cookie: other.cookie } })).status).toBe(404);
    const revoked = await http('DELETE', `${us}/api/v1/device_links/${linkId}`, { headers: { cookie } });
    expect(revoked.status).toBe(200);
    expect(revoked.body.device_link).toMatchObject({ id: linkId, status: 'revoked', push_service: null });
    const before = push.received.length;
    const notices = (await heldMailsTo(mail, 'ada@example.test')).filter((m) => /^Approval needed/.test(m.subject)).length;
    const escalationId = await escalate([personId]);
    // The notice email is sent in the same consumer round as the pushes would be.
    await waitFor(
      async () =>
        (await heldMailsTo(mail, 'ada@example.test')).filter((m) => /^Approval needed/.test(m.subject)).length > notices ? true : undefined,
      15_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(push.received.length).toBe(before);
    expect((await http('GET', `${us}/inbox?kind=approval`, { headers: { cookie } })).text).toContain(escalationId);
  });
});
